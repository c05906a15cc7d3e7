"""The statistics the battery and the audit share: p-values of counts against exact expectations, and the
verdict rule (Bonferroni), stated before any figure is computed."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats as scipy_stats

#: The family-wise error rate of a battery or an audit: the chance that honest code is flagged somewhere.
ALPHA = 0.01


@dataclass(frozen=True, slots=True)
class PValue:
    """One test's p-value, with what it tested (``name``) and the figures behind it, in words."""

    name: str
    p: float
    detail: str = ""


def bonferroni(count: int, alpha: float = ALPHA) -> float:
    """The threshold each of ``count`` p-values must clear for the family to pass at ``alpha``."""
    return alpha / max(count, 1)


def verdict_rule(alpha: float = ALPHA) -> str:
    """The rule, in words, as the report states it before the results."""
    return (
        f"Bonferroni at a family-wise level of {alpha}: with k p-values in the report, the run FAILS if any "
        f"p-value is below {alpha}/k, and PASSES otherwise. A p-value is two-sided where a deviation either way "
        "matters (counts against their expectation), upper-tailed for chi-square statistics."
    )


def chi_square(observed: Sequence[float], expected: Sequence[float], dof: int) -> tuple[float, float]:
    """Pearson's statistic and its upper-tail p-value with ``dof`` degrees of freedom."""
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True) if e > 0)
    return statistic, float(scipy_stats.chi2.sf(statistic, dof))


def binomial_two_sided(k: int, n: int, p: float) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` trials of probability ``p`` (twice the smaller tail)."""
    if n == 0:
        return 1.0
    low = float(scipy_stats.binom.cdf(k, n, p))
    high = float(scipy_stats.binom.sf(k - 1, n, p))
    return min(1.0, 2 * min(low, high))


def normal_two_sided(observed: float, expected: float, variance: float) -> float:
    """Two-sided p-value of a sum of independent terms against its exact mean and variance (normal limit)."""
    if variance <= 0:
        return 1.0 if math.isclose(observed, expected, abs_tol=1e-9) else 0.0
    z = (observed - expected) / math.sqrt(variance)
    return float(2 * scipy_stats.norm.sf(abs(z)))


def z_for(threshold: float) -> float:
    """The two-sided normal quantile whose p-value is ``threshold`` (the interval's half-width in standard
    deviations)."""
    return float(scipy_stats.norm.isf(threshold / 2))
