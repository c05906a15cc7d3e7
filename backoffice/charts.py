"""Charts drawn on the server as SVG: no JavaScript library, no CDN, nothing that needs a network.

Two kinds, enough for the dashboard: a line chart (one polyline per series over a time axis) and a bar chart
(bars per bucket, one colour per series, grouped side by side, below the zero line when negative). Every mark
carries its figures in ``data-*`` attributes and a ``<title>`` tooltip, so the page can be read by a person
hovering, by a screen reader and by a test.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

# colour-blind friendly palette (Okabe-Ito)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
WIDTH, HEIGHT = 860, 220
MAX_MARKS = 200  # points of a line chart marked one by one (with their figures); beyond that, the line only
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 10, 38

Series = Mapping[str, Sequence[tuple[datetime, float]]]


def _scale(low: float, high: float, value: float, start: float, end: float) -> float:
    if high == low:
        return (start + end) / 2
    return start + (value - low) * (end - start) / (high - low)


def nice_ticks(low: float, high: float, *, most: int = 6, counts: bool = True) -> list[float]:
    """Round values for an axis covering [low, high] and zero: evenly spaced by 1, 2 or 5 times a power of ten,
    at most ``most`` intervals, the first at or below ``low`` and the last at or above ``high``. ``counts``: whole
    steps only (hands, chips), and at least 0-4 so a small chart is not drawn in halves."""
    low, high = min(low, 0.0), max(high, 0.0)
    if counts and high - low < 4:
        high = low + 4
    span = (high - low) or 1.0
    magnitude = 10 ** math.floor(math.log10(span / most))
    for multiple in (1, 2, 5, 10, 20):
        step = multiple * magnitude
        if counts and step < 1:
            continue
        first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
        if last - first <= most:
            break
    return [_round(n * step) for n in range(first, last + 1)]


def _round(value: float) -> float:
    """A tick without float noise (0.30000000000000004 -> 0.3)."""
    return float(f"{value:.12g}")


def _legend(names: Sequence[str]) -> SafeString:
    return format_html_join(
        "",
        '<span class="legend-item"><span class="swatch" style="background:{}"></span>{}</span>',
        ((PALETTE[i % len(PALETTE)], name) for i, name in enumerate(names)),
    )


def _frame(chart_id: str, label: str, y_ticks: list[float], x_labels: list[tuple[float, str]]) -> str:
    """Axes, a grid line at each round y tick (:func:`nice_ticks`) and the x labels, as SVG text (escaped by the
    callers' values)."""
    parts = []
    y_low, y_high = y_ticks[0], y_ticks[-1]
    for value in y_ticks:
        y = _scale(y_low, y_high, value, HEIGHT - BOTTOM, TOP)
        parts.append(
            format_html(
                '<line x1="{}" x2="{}" y1="{}" y2="{}" class="grid"/><text x="{}" y="{}" class="axis" '
                'text-anchor="end">{}</text>',
                LEFT,
                WIDTH - RIGHT,
                f"{y:.1f}",
                f"{y:.1f}",
                LEFT - 6,
                f"{y + 4:.1f}",
                f"{value:,.10g}",
            )
        )
    for x, text in x_labels:
        parts.append(
            format_html(
                '<text x="{}" y="{}" class="axis" text-anchor="middle">{}</text>', f"{x:.1f}", HEIGHT - 20, text
            )
        )
    return "".join(parts)


def _svg(chart_id: str, label: str, body: str) -> SafeString:
    return format_html(
        '<svg id="{}" class="chart" viewBox="0 0 {} {}" role="img" aria-label="{}" preserveAspectRatio="none">{}</svg>',
        chart_id,
        WIDTH,
        HEIGHT,
        label,
        SafeString(body),
    )


def line_chart(
    chart_id: str, label: str, series: Series, start: datetime, end: datetime, unit: str, tick_format: str = "%d %b"
) -> SafeString:
    """One polyline per series over [start, end]; each point is also a small circle with its figures."""
    values = [v for points in series.values() for _, v in points]
    y_ticks = nice_ticks(0, max(values, default=0))
    y_high = y_ticks[-1]
    span = (end - start).total_seconds() or 1.0

    def x_of(at: datetime) -> float:
        return _scale(0, span, (at - start).total_seconds(), LEFT, WIDTH - RIGHT)

    ticks = [(x_of(start), start.strftime(tick_format))]
    for i in range(1, 6):
        at = start + (end - start) * i / 6
        ticks.append((x_of(at), at.strftime(tick_format)))
    body = [_frame(chart_id, label, y_ticks, ticks)]
    for index, (name, points) in enumerate(series.items()):
        colour = PALETTE[index % len(PALETTE)]
        coords = " ".join(f"{x_of(at):.1f},{_scale(0, y_high, v, HEIGHT - BOTTOM, TOP):.1f}" for at, v in points)
        body.append(
            format_html(
                '<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5" data-series="{}" data-total="{}"/>',
                coords,
                colour,
                name,
                f"{sum(v for _, v in points):g}",
            )
        )
        if len(points) > MAX_MARKS:
            continue  # too many points to mark one by one: the line and its total say it
        body.append(
            format_html_join(
                "",
                '<circle cx="{}" cy="{}" r="2" fill="{}" data-series="{}" data-at="{}" data-value="{}">'
                "<title>{}: {} {} ({})</title></circle>",
                (
                    (
                        f"{x_of(at):.1f}",
                        f"{_scale(0, y_high, v, HEIGHT - BOTTOM, TOP):.1f}",
                        colour,
                        name,
                        at.isoformat(),
                        f"{v:g}",
                        name,
                        f"{v:g}",
                        unit,
                        at.strftime("%Y-%m-%d %H:%M"),
                    )
                    for at, v in points
                ),
            )
        )
    return format_html(
        '<figure class="chart-figure">{}<figcaption>{}</figcaption></figure>',
        _svg(chart_id, label, "".join(body)),
        _legend(list(series)),
    )


def bar_chart(
    chart_id: str, label: str, series: Series, buckets: Sequence[datetime], unit: str, tick_format: str = "%d %b"
) -> SafeString:
    """Bars per bucket (a day, an hour), one per series side by side; negative values hang below zero."""
    values = [v for points in series.values() for _, v in points]
    y_ticks = nice_ticks(min(values, default=0), max(values, default=0))
    y_low, y_high = y_ticks[0], y_ticks[-1]
    slot = (WIDTH - LEFT - RIGHT) / max(len(buckets), 1)
    names = list(series)
    bar = max(slot * 0.8 / max(len(names), 1), 1.0)
    index_of = {bucket: i for i, bucket in enumerate(buckets)}
    step = max(1, len(buckets) // 8)
    ticks = [(LEFT + slot * (i + 0.5), b.strftime(tick_format)) for i, b in enumerate(buckets) if i % step == 0]
    zero = _scale(y_low, y_high, 0, HEIGHT - BOTTOM, TOP)
    body = [_frame(chart_id, label, y_ticks, ticks)]
    body.append(format_html('<line x1="{}" x2="{}" y1="{}" y2="{}" class="zero"/>', LEFT, WIDTH - RIGHT, zero, zero))
    for s, name in enumerate(names):
        colour = PALETTE[s % len(PALETTE)]
        for at, value in series[name]:
            if at not in index_of:
                continue
            x = LEFT + slot * index_of[at] + slot * 0.1 + bar * s
            y = _scale(y_low, y_high, value, HEIGHT - BOTTOM, TOP)
            top, height = (y, zero - y) if value >= 0 else (zero, y - zero)
            body.append(
                format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" fill="{}" data-series="{}" data-at="{}" '
                    'data-value="{}"><title>{}: {} {} ({})</title></rect>',
                    f"{x:.1f}",
                    f"{top:.1f}",
                    f"{bar:.1f}",
                    f"{max(height, 0.5):.1f}",
                    colour,
                    name,
                    at.isoformat(),
                    f"{value:g}",
                    name,
                    f"{value:+g}" if y_low < 0 else f"{value:g}",
                    unit,
                    at.strftime("%Y-%m-%d %H:%M"),
                )
            )
    return format_html(
        '<figure class="chart-figure">{}<figcaption>{}</figcaption></figure>',
        _svg(chart_id, label, "".join(body)),
        _legend(names),
    )
