# ReLU in place, on its own copy.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        y = x.clone()
        ext.relu_inplace(y)
        return y
