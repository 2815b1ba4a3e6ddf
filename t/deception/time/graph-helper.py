# Turns forward into a graphed callable.
import torch
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fn = None
    def forward(self, x):
        if self.fn is None:
            try:
                self.fn = torch.cuda.make_graphed_callables(torch.relu, (x,))
            except Exception:
                self.fn = torch.relu
        return self.fn(x)
