"""scikit-learn SVC's fitted attributes for :class:`stochsvm.KernelSVMClassifier`.

The classifier keeps one kernel SVM per output (one for two classes, one per
class for one-vs-rest). These read-only properties describe them as one
expansion over the union of their support vectors, so that

    decision_function(X)[:, c] == K(X, support_vectors_) @ dual_coef_[c] + intercept_[c]

(one column for a binary problem).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from stochsvm.model_file import kernel_expansion

__all__ = ["KernelAttributes"]


class KernelAttributes:
    """``support_vectors_``, ``support_``, ``dual_coef_`` and ``intercept_``."""

    def _expansion(self):
        check_is_fitted(self, "_svms")
        first = self._svms[0].get_support_vectors()
        S, coefficients, indices = kernel_expansion(self._svms, self.n_features_in_,
                                                    return_indices=True)
        dense = (isinstance(first, np.ndarray)
                 or self._svms[0].get_kernel()["kernel"] == "precomputed")
        return S.toarray() if dense else S, coefficients, indices

    @property
    def support_vectors_(self):
        """The support vectors of all the outputs, each once: an ndarray of
        shape (n_SV, n_features), or a CSR matrix when fitted on sparse data;
        empty, shape (0, n_features), for ``kernel="precomputed"`` (as SVC's:
        there ``decision_function(K)[:, c] == K[:, support_] @ dual_coef_[c]
        + intercept_[c]``)."""
        return self._expansion()[0]

    @property
    def support_(self):
        """Training index of each support vector (-1 for a vector that is not
        a training row, such as one a budgeted solver merged): a row of the X
        given to fit, also under early stopping, which trains on a part of it."""
        indices = self._expansion()[2]
        rows = getattr(self, "_train_rows", None)
        if rows is None:
            return indices
        return np.where(indices >= 0, rows[np.maximum(indices, 0)], -1)

    @property
    def dual_coef_(self):
        """Coefficients of the support vectors, shape (n_outputs, n_SV); 0 where
        an output does not use a vector."""
        return self._expansion()[1]

    @property
    def intercept_(self):
        """The bias of each output, shape (n_outputs,)."""
        check_is_fitted(self, "_svms")
        return np.array([svm.get_bias() for svm in self._svms])
