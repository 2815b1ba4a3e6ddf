# Right output, but it scribbles on the input.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        y = ext.relu_loop(x)
        x.mul_(0.5)
        return y
