import torch
class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = torch.nn.Linear(n, n)
    def forward(self, x):
        return torch.relu(self.lin(x))
def get_inputs():
    return [torch.randn(32, 64)]
def get_init_inputs():
    return [64]
