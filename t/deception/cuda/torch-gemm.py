# torch's GEMM, its own ReLU.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return ext.relu_cuda(torch.mm(x, x.t()))
