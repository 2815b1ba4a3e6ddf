# No extension at all.
import torch
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return x.clamp(min=0)
