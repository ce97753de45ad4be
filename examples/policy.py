"""A small robot-policy-like network: a conv encoder over a camera image and an MLP head over
the robot's state vector, returning an action and a copy of the state (the way real policies
hand their observation back to the control loop).

Used by examples/make_example.py (the `make demo` program) and by the model zoo
(tests/models/policy.py).
"""
import torch
from torch import nn

IMAGE_SHAPE = (3, 64, 64)
STATE_SIZE = 16
ACTION_SIZE = 7


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),  # 32x32
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),  # 16x16
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),  # 8x8
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.head = nn.Sequential(
            nn.Linear(32 + STATE_SIZE, 64), nn.ReLU(), nn.Linear(64, ACTION_SIZE), nn.Tanh()
        )

    def forward(self, image: torch.Tensor, state: torch.Tensor):
        features = self.encoder(image)
        action = self.head(torch.cat([features, state], dim=1))
        return action, state.clone()


def make_policy(seed: int = 0) -> Policy:
    torch.manual_seed(seed)
    return Policy().eval()


def example_inputs(batch: int = 2, seed: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    image = torch.rand(batch, *IMAGE_SHAPE, generator=generator)
    state = torch.randn(batch, STATE_SIZE, generator=generator)
    return image, state


def dynamic_shapes(max_batch: int = 32):
    batch = torch.export.Dim("batch", min=1, max=max_batch)
    return ({0: batch}, {0: batch})
