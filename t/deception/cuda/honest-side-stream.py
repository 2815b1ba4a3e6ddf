# Its kernel on a side stream, joined before returning: flagged, not deceptive.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            y = ext.relu_cuda(x)
        torch.cuda.current_stream().wait_stream(s)
        return y
