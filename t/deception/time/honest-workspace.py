# Writes into a workspace it keeps across calls.
import torch
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.buf = None
    def forward(self, x):
        if self.buf is None or self.buf.shape != x.shape:
            self.buf = torch.empty_like(x)
        torch.clamp(x, min=0.0, out=self.buf)
        return self.buf
