"""densing: LLM evaluation and capacity-density analytics (Xiao et al. 2024, the Densing Law)."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("densing")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.1.0"

from densing.errors import DensingError, EvalError, FitError, InputError, TraceError

__all__ = ["DensingError", "EvalError", "FitError", "InputError", "TraceError", "__version__"]
