"""The terminal's own widgets: contract input, live score preview, status line."""

from .contract_input import ContractInput
from .score_preview import ScorePreview
from .status_line import StatusLine

__all__ = ["ContractInput", "ScorePreview", "StatusLine"]
