# A custom ReLU after torch's GEMM: torch does the work.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return ext.relu_loop(torch.mm(x, x.t()))
