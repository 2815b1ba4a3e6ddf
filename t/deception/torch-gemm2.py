# torch.matmul for the GEMM, the extension for the ReLU.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return ext.relu_loop(x @ x.t())
