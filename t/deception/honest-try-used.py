# A try/except around the call that never falls back.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        try:
            return ext.relu_loop(x)
        except RuntimeError:
            raise
