# Reshapes with torch around the extension's call.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        flat = x.reshape(-1).contiguous()
        return ext.relu_loop(flat).view(x.shape)
