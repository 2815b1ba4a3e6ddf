# Fused GEMM and ReLU in the extension.
import torch
#@EXT@
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return ext.gram_relu(x)
