import ctypes

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        ctypes.string_at(0x10, 8)     # host code dereferences a bad pointer: SIGSEGV
        return x
