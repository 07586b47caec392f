"""Open an HTML report in a real browser engine (Chromium, as Qt WebEngine embeds it) at given window widths,
save a screenshot of each, and check what a reader would see: nothing wider than the window, no text cut at a
figure's edge, no two labels of a figure on top of each other, no label across a line, no legend that scrolls or
shows two entries alike.

    python tools/report_in_browser.py PAGE.html --width 900 --width 1400 --out SHOTS_DIR [--first-screen | --height PX] [--jpg]

Needs ``PyQt6-WebEngine`` (in the ``test`` extra). For each width it writes ``SHOTS_DIR/<page>-<width>.png``
(the whole page; its first 1,000 px with ``--first-screen``, its first PX with ``--height``; ``.jpg`` at quality 80
with ``--jpg``) and prints one JSON line::

    {"width": 900, "viewport": 885, "height": 9281, "page_overflow": 0, "wide_tables": [...], "cut_text": [...],
     "overlapping_labels": [...], "labels_on_lines": [...], "scrolling_legends": [...], "repeated_looks": [...]}

- ``page_overflow``: how many px the page is wider than the window (a horizontal scroll bar for the page);
- ``wide_tables``: each table whose box scrolls sideways at this width (its first header cell and by how many px);
- ``cut_text``: each text of a figure reaching past the figure's own box (the browser cuts it there), with the
  figure's title;
- ``overlapping_labels``: each pair of a figure's point labels or annotations whose boxes overlap by more than
  1 px each way, with the figure's title.
- ``labels_on_lines``: each annotation of a figure that a drawn line (a bar, an interval, a trend line) crosses
  inside its box, with the figure's title;
- ``scrolling_legends``: each figure whose legend scrolls (entries a reader cannot see without scrolling);
- ``repeated_looks``: each pair of one legend's entries drawn alike (the same colour, marker and dash).

The exit status is 0 when every list is empty and nothing overflows, 1 otherwise, 2 when the page cannot be
opened. The browser runs in this process (offscreen) and ends with it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

#: Milliseconds to let the page's scripts draw every figure before it is measured, and before a screenshot.
SETTLE_MS = 6000
#: Milliseconds to let the browser paint the whole page once the window is made as tall as it.
PAINT_MS = 5000
#: The height (px) of the first screen, for ``--first-screen``.
FIRST_SCREEN = 1000

CHECK = r"""
(() => {
  const vw = document.documentElement.clientWidth;
  const out = {viewport: vw, height: document.documentElement.scrollHeight,
               page_overflow: Math.max(0, document.documentElement.scrollWidth - vw),
               wide_tables: [], cut_text: [], overlapping_labels: [], labels_on_lines: [], scrolling_legends: [],
               repeated_looks: []};
  for (const box of document.querySelectorAll('div.table')) {
    const over = box.scrollWidth - box.clientWidth;
    if (over > 1) {
      const th = box.querySelector('th');
      out.wide_tables.push({first_header: th ? th.textContent.trim() : '', px: over});
    }
  }
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || !el.textContent.trim()) return null;
    for (let p = el; p && p.nodeType === 1; p = p.parentNode) {
      const s = getComputedStyle(p);
      if (s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0') return null;
    }
    return r;
  };
  for (const plot of document.querySelectorAll('div.js-plotly-plot')) {
    const frame = plot.getBoundingClientRect();
    const titleEl = plot.querySelector('.gtitle');
    const title = titleEl ? titleEl.textContent : '';
    for (const t of plot.querySelectorAll('svg text')) {
      if (t.closest('g.legend') && t.closest('g.scrollbox')) continue;  // a scrolling legend clips on purpose
      const r = visible(t);
      if (!r) continue;
      if (r.left < frame.left - 1 || r.right > frame.right + 1) {
        out.cut_text.push({figure: title, text: t.textContent.slice(0, 80),
                           px: Math.round(Math.max(frame.left - r.left, r.right - frame.right))});
      }
    }
    const labels = [];
    for (const t of plot.querySelectorAll('g.textpoint text, g.annotation-text-g text')) {
      const r = visible(t);
      if (r) labels.push([t.textContent, r]);
    }
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i][1], b = labels[j][1];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1) out.overlapping_labels.push({figure: title, labels: [labels[i][0], labels[j][0]]});
      }
    }
    // an annotation lying across a drawn line (a bar, an interval): points sampled every 3 px along each line
    const notes = [];
    for (const t of plot.querySelectorAll('g.annotation-text-g text')) {
      const r = visible(t);
      if (r) notes.push([t.textContent, r]);
    }
    for (const line of plot.querySelectorAll('g.scatterlayer path.js-line')) {
      if (!notes.length || !visible(line) && !line.getTotalLength) continue;
      const length = line.getTotalLength(), matrix = line.getScreenCTM();
      if (!matrix || !(length > 0)) continue;
      const hit = new Set();
      for (let d = 0; d <= length; d += 3) {
        const p = line.getPointAtLength(d), x = p.x * matrix.a + p.y * matrix.c + matrix.e,
              y = p.x * matrix.b + p.y * matrix.d + matrix.f;
        notes.forEach(([text, r], k) => {
          if (x > r.left + 1 && x < r.right - 1 && y > r.top + 1 && y < r.bottom - 1) hit.add(k);
        });
      }
      for (const k of hit) out.labels_on_lines.push({figure: title, label: notes[k][0].slice(0, 80)});
    }
    // a legend that scrolls (plotly draws a scroll bar when its entries do not fit), and two entries of one legend
    // that look alike (the same colour, marker and dash)
    for (const bar of plot.querySelectorAll('g.legend rect.scrollbar')) {
      const r = bar.getBoundingClientRect();
      if (r.height > 0 && r.width > 0) out.scrolling_legends.push({figure: title});
    }
    const looks = new Map();
    for (const item of plot.querySelectorAll('g.legend g.traces')) {
      const name = (item.querySelector('text.legendtext') || {}).textContent || '';
      const point = item.querySelector('path.scatterpts'), line = item.querySelector('path.js-line');
      const style = (el, key) => el ? (el.style.getPropertyValue(key) || el.getAttribute(key) || '') : '';
      const look = [style(point, 'fill'), point ? point.getAttribute('d') : '', style(line, 'stroke'),
                    style(line, 'stroke-dasharray')].join('|');
      if (looks.has(look)) out.repeated_looks.push({figure: title, entries: [looks.get(look), name]});
      else looks.set(look, name);
    }
  }
  return JSON.stringify(out);
})()
"""


def problems(found: dict) -> int:
    """How many things the check found wrong in one width's result."""
    return (
        (found["page_overflow"] > 1)
        + len(found["wide_tables"])
        + len(found["cut_text"])
        + len(found["overlapping_labels"])
        + len(found["labels_on_lines"])
        + len(found["scrolling_legends"])
        + len(found["repeated_looks"])
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("--width", type=int, action="append", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--first-screen", action="store_true")
    parser.add_argument("--height", type=int)
    parser.add_argument("--jpg", action="store_true")
    args = parser.parse_args(argv)
    if not args.page.is_file():
        print(f"{args.page}: no such file", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu --log-level=3")
    os.environ.setdefault("QT_LOGGING_RULES", "*=false")
    from PyQt6.QtCore import QTimer, QUrl
    from PyQt6.QtWebEngineWidgets import QWebEngineView
    from PyQt6.QtWidgets import QApplication

    app = QApplication([sys.argv[0]])
    results: list[dict] = []
    widths = list(args.width)
    view = QWebEngineView()

    def shoot(found: dict) -> None:
        width = found["width"]
        tallest = FIRST_SCREEN if args.first_screen else args.height or 30000
        view.resize(width, min(found["height"], tallest))
        name = str(args.out / f"{args.page.stem}-{width}.{'jpg' if args.jpg else 'png'}")
        QTimer.singleShot(PAINT_MS, lambda: (view.grab().save(name, quality=80 if args.jpg else -1), advance()))

    def measured(width: int, text) -> None:
        if not isinstance(text, str):
            print(f"{args.page}: the page's scripts did not run", file=sys.stderr)
            app.exit(2)
            return
        found = {"width": width, **json.loads(text)}
        results.append(found)
        print(json.dumps(found), flush=True)
        shoot(found)

    def measure(width: int) -> None:
        view.page().runJavaScript(CHECK, lambda text: measured(width, text))

    def advance() -> None:
        if not widths:
            app.exit(0)
            return
        width = widths.pop(0)
        view.resize(width, FIRST_SCREEN)
        QTimer.singleShot(SETTLE_MS, lambda: measure(width))  # plotly redraws to the new width

    def loaded(ok: bool) -> None:
        if not ok:
            print(f"{args.page}: the browser could not open it", file=sys.stderr)
            app.exit(2)
            return
        advance()

    view.loadFinished.connect(loaded)
    view.resize(widths[0], FIRST_SCREEN)
    view.show()
    view.load(QUrl.fromLocalFile(str(args.page.resolve())))
    status = app.exec()
    if status:
        return status
    return 1 if any(problems(r) for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
