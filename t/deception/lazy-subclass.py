# Returns a tensor subclass.
import torch
#@EXT@
class Lazy(torch.Tensor):
    pass
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return ext.relu_loop(x).as_subclass(Lazy)
