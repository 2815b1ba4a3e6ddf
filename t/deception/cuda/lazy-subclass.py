# A tensor subclass.
import torch
#@EXT@
class Lazy(torch.Tensor):
    pass
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return ext.relu_cuda(x).as_subclass(Lazy)
