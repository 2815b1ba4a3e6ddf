# The extension computes; forward only calls it.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return ext.relu_loop(x)
