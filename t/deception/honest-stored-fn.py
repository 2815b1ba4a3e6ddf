# Keeps the extension's function as an attribute.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.op = ext.relu_loop
    def forward(self, x):
        return self.op(x)
