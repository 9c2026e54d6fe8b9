"""stochsvm: fast stochastic SVM solvers with a small portable C core.

The main object is :class:`SVM`, a one-to-one mirror of the C ``SsSvm``
(VLFeat's ``vl_svm`` API with its defects fixed). :func:`svmtrain` mirrors
VLFeat's ``vl_svmtrain``. Importing this package is cheap: it loads NumPy and
the compiled core only; everything else is imported on first use.
"""

from stochsvm._svm import SVM, HomogeneousKernelMap, homkermap
from stochsvm._kernel_svm import KernelSVM, find_gamma, find_gamma_and_bias, kernel_matrix
from stochsvm._version import __version__

__all__ = ["SVM", "HomogeneousKernelMap", "homkermap", "svmtrain", "KernelSVM", "kernel_matrix",
           "find_gamma", "find_gamma_and_bias", "LinearSVMClassifier", "LinearSVMRegressor",
           "KernelSVMClassifier", "save_model", "load_model", "read_model", "__version__"]

# Names provided by submodules, imported on first access (PEP 562).
_LAZY = {
    "svmtrain": "stochsvm.svm",
    # scikit-learn estimators (scikit-learn, a dependency, loads with them)
    "LinearSVMClassifier": "stochsvm.linear",
    "LinearSVMRegressor": "stochsvm.linear",
    "KernelSVMClassifier": "stochsvm.kernel",
    # model files (the C core's portable format)
    "save_model": "stochsvm.model_file",
    "load_model": "stochsvm.model_file",
    "read_model": "stochsvm.model_file",
}


def __getattr__(name):
    module_name = _LAZY.get(name)
    if module_name is not None:
        import importlib

        value = getattr(importlib.import_module(module_name), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'stochsvm' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
