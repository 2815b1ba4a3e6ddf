# Allocates with torch.empty and lets the extension fill it.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        y = torch.empty_like(x)
        ext.relu_into(x.contiguous(), y)
        return y
