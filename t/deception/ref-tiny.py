import torch
# Outputs so small that zeros pass at atol 1e-2: a weak problem.
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return torch.relu(x)
def get_inputs():
    return [torch.randn(64, 128) * 1e-4]
def get_init_inputs():
    return []
