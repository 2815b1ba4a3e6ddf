# Keeps a transposed copy of its weight, made once in __init__.
import torch
class ModelNew(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = torch.nn.Linear(n, n)
        self.register_buffer("wt", self.lin.weight.detach().t().contiguous())
    def forward(self, x):
        return torch.relu(torch.addmm(self.lin.bias, x, self.wt))
