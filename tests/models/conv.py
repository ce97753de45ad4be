"""Convolutional programs: conv/BN/ReLU, a ResNet basic block, depthwise conv, pooling,
upsampling, channels-last tensors."""
import torch
from torch import nn
from torch.export import Dim

from . import ModelCase, randomize_batchnorm, register

BATCH = (2, 3)


def _batch_dim():
    return Dim("batch", min=1, max=8)


# ---------------------------------------------------------------------------------------------
class ConvBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


def _make_conv_bn_relu():
    torch.manual_seed(10)
    m = ConvBnRelu()
    randomize_batchnorm(m.bn)
    return m.eval()


def _conv_bn_relu_inputs(variant):
    torch.manual_seed(300 + variant)
    b, h, w = ((2, 16, 16), (3, 12, 20))[variant]
    return (torch.randn(b, 3, h, w),)


register(
    ModelCase(
        name="conv_bn_relu",
        make_module=_make_conv_bn_relu,
        make_inputs=_conv_bn_relu_inputs,
        dynamic_shapes=(
            {0: _batch_dim(), 2: Dim("height", min=4, max=64), 3: Dim("width", min=4, max=64)},
        ),
        notes="Conv2d + eval BatchNorm2d + ReLU; batch, height and width all dynamic.",
    )
)


# ---------------------------------------------------------------------------------------------
class BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock with a strided 1x1 downsample."""

    def __init__(self, cin=8, cout=16, stride=2):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout)
        )

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.downsample(x))


def _make_basic_block():
    torch.manual_seed(11)
    m = BasicBlock()
    for bn in (m.bn1, m.bn2, m.downsample[1]):
        randomize_batchnorm(bn)
    return m.eval()


def _basic_block_inputs(variant):
    torch.manual_seed(310 + variant)
    return (torch.randn(BATCH[variant], 8, 16, 16),)


register(
    ModelCase(
        name="resnet_basic_block",
        make_module=_make_basic_block,
        make_inputs=_basic_block_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="ResNet basic block: two 3x3 conv+BN, a strided 1x1 downsample, residual add.",
    )
)


# ---------------------------------------------------------------------------------------------
class DepthwiseSeparable(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = nn.Conv2d(8, 12, 1)
        self.dw_strided = nn.Conv2d(12, 24, 5, stride=2, padding=2, groups=12)  # multiplier 2

    def forward(self, x):
        y = torch.nn.functional.relu6(self.dw(x))
        y = self.pw(y)
        return self.dw_strided(y)


def _make_depthwise():
    torch.manual_seed(12)
    return DepthwiseSeparable().eval()


def _depthwise_inputs(variant):
    torch.manual_seed(320 + variant)
    return (torch.randn(BATCH[variant], 8, 15, 15),)


register(
    ModelCase(
        name="depthwise_conv",
        make_module=_make_depthwise,
        make_inputs=_depthwise_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="Depthwise 3x3, pointwise 1x1, strided depthwise 5x5 with channel multiplier 2, "
        "odd spatial size.",
    )
)


# ---------------------------------------------------------------------------------------------
class Pooling(nn.Module):
    def __init__(self):
        super().__init__()
        self.maxpool = nn.MaxPool2d(2)
        self.maxpool_pad = nn.MaxPool2d(3, stride=2, padding=1)
        self.avgpool = nn.AvgPool2d(3, stride=2, padding=1)  # count_include_pad=True
        self.avgpool_ceil = nn.AvgPool2d(2, stride=2, ceil_mode=True, count_include_pad=False)
        self.gap = nn.AdaptiveAvgPool2d((1, 1))
        self.adaptive = nn.AdaptiveAvgPool2d((3, 2))

    def forward(self, x):
        return (
            self.maxpool(x),
            self.maxpool_pad(x),
            self.avgpool(x),
            self.avgpool_ceil(x),
            self.gap(x).flatten(1),
            self.adaptive(x),
        )


def _pooling_inputs(variant):
    torch.manual_seed(330 + variant)
    return (torch.randn(BATCH[variant], 4, 9, 12),)


register(
    ModelCase(
        name="pooling",
        make_module=lambda: Pooling().eval(),
        make_inputs=_pooling_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="Max and average pooling with padding and ceil_mode, global and adaptive average "
        "pooling to an output size that does not divide the input.",
    )
)


# ---------------------------------------------------------------------------------------------
class Upsample(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        near = torch.nn.functional.interpolate(y, scale_factor=2, mode="nearest")
        bil = torch.nn.functional.interpolate(y, size=(10, 14), mode="bilinear", align_corners=False)
        return near, bil


def _make_upsample():
    torch.manual_seed(13)
    return Upsample().eval()


def _upsample_inputs(variant):
    torch.manual_seed(340 + variant)
    return (torch.randn(BATCH[variant], 4, 5, 7),)


register(
    ModelCase(
        name="upsample",
        make_module=_make_upsample,
        make_inputs=_upsample_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="Nearest x2 and bilinear (align_corners=False) resize to a fixed size.",
    )
)


# ---------------------------------------------------------------------------------------------
class ChannelsLastConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)

    def forward(self, x):
        y = self.conv(x.contiguous(memory_format=torch.channels_last))
        return y, y.mean(dim=(2, 3))


def _make_channels_last_conv():
    torch.manual_seed(14)
    return ChannelsLastConv().eval()


def _channels_last_conv_inputs(variant):
    torch.manual_seed(350 + variant)
    return (torch.randn(BATCH[variant], 3, 8, 10),)


register(
    ModelCase(
        name="channels_last_conv",
        make_module=_make_channels_last_conv,
        make_inputs=_channels_last_conv_inputs,
        dynamic_shapes=({0: _batch_dim()},),
        notes="A conv on a channels-last copy of the input: its output is channels-last and is "
        "both returned and reduced over (2, 3) (docs/EXACTNESS.md K4).",
    )
)
