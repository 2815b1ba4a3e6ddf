# Reuses the input as scratch space.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        y = ext.relu_loop(x)
        ext.relu_inplace(x)
        return y
