# Reads the clocks for its own bookkeeping and leaves them alone.
import time
import torch
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.spent = 0.0
    def forward(self, x):
        start = time.perf_counter()
        y = torch.relu(x)
        self.spent += time.perf_counter() - start
        return y
