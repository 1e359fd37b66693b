// check_layout.js - what a reader sees in the browser, checked in the browser.
//
// chromium_pictures.sh appends this script to a copy of a page (never to the
// page perfbound writes) and loads the copy in headless Chromium at a window
// width, in light or forced dark mode; the script writes what it found into
// <pre id="pb-layout-result"> as JSON, which --dump-dom returns:
//   - clipping: the page is no wider than the window, and no table or chart
//     needs horizontal scrolling inside its card (code blocks may scroll);
//   - overlap: no two text labels of one SVG chart overlap, and none runs
//     out of its chart;
//   - contrast: every SVG label and every text element has a contrast ratio
//     of at least 3 against the background it is drawn on (WCAG 2 formula);
//   - duplicates: no section heading appears twice, and the findings table
//     is on the page once.
(function () {
  var problems = [];
  function say(kind, text) { problems.push(kind + ": " + text); }
  function label(el) {
    var t = (el.textContent || "").trim().replace(/\s+/g, " ");
    return "<" + el.tagName.toLowerCase() + (el.getAttribute("class") ? " class=" + el.getAttribute("class") : "") + "> '" +
      t.slice(0, 60) + "'";
  }
  var W = document.documentElement.clientWidth;

  // Clipping.
  if (document.documentElement.scrollWidth > W + 1)
    say("clipping", "the page is " + document.documentElement.scrollWidth + " px wide in a " + W + " px window");
  document.querySelectorAll("section.pb-card").forEach(function (card) {
    if (card.scrollWidth > card.clientWidth + 1) {
      var wide = null;
      card.querySelectorAll("table, svg, .kv").forEach(function (el) {
        if (!wide && el.getBoundingClientRect().right > card.getBoundingClientRect().right + 1) wide = el;
      });
      say("clipping", "a card needs " + card.scrollWidth + " px in " + card.clientWidth + " px" + (wide ? ": " + label(wide) : ""));
    }
  });

  // Overlapping labels in each chart.
  document.querySelectorAll("svg").forEach(function (svg) {
    var box = svg.getBoundingClientRect();
    var texts = Array.prototype.slice.call(svg.querySelectorAll("text")).filter(function (t) {
      return (t.textContent || "").trim() !== "";
    });
    var rects = texts.map(function (t) { return t.getBoundingClientRect(); });
    for (var i = 0; i < texts.length; ++i) {
      var a = rects[i];
      if (a.left < box.left - 1 || a.right > box.right + 1 || a.top < box.top - 1 || a.bottom > box.bottom + 1)
        say("overlap", label(texts[i]) + " runs out of its chart (" + (svg.getAttribute("aria-label") || "svg") + ")");
      for (var j = i + 1; j < texts.length; ++j) {
        var b = rects[j];
        var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1 && w * h > 4)
          say("overlap", label(texts[i]) + " and " + label(texts[j]) + " overlap in " +
            (svg.getAttribute("aria-label") || "svg"));
      }
    }
  });

  // Contrast.
  function rgb(text) {
    var m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(text || "");
    if (!m) return null;
    return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
  }
  function luminance(c) {
    var v = c.slice(0, 3).map(function (x) {
      x /= 255;
      return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
  }
  function background(el) {
    for (var n = el; n && n.nodeType === 1; n = n.parentElement) {
      var c = rgb(getComputedStyle(n).backgroundColor);
      if (c && c[3] > 0.5) return c;
    }
    return rgb(getComputedStyle(document.documentElement).backgroundColor) || [255, 255, 255, 1];
  }
  function ratio(fg, bg) {
    var a = luminance(fg), b = luminance(bg);
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }
  var low = 0;
  var seen = {};
  document.querySelectorAll("svg text, p, td, th, li, h1, h2, h3, summary, span, div.k, a, b, code").forEach(function (el) {
    var own = Array.prototype.some.call(el.childNodes, function (n) { return n.nodeType === 3 && n.textContent.trim() !== ""; });
    if (!own) return;
    var style = getComputedStyle(el);
    var fg = rgb(el.namespaceURI === "http://www.w3.org/2000/svg" ? style.fill : style.color);
    if (!fg) return;
    var r = ratio(fg, background(el));
    if (r < 3) {
      var key = label(el);
      if (!seen[key] && low < 20) say("contrast", key + " has contrast " + r.toFixed(2) + " (" + style.color + " / " + style.fill + ")");
      seen[key] = true;
      ++low;
    }
  });

  // Duplicated sections.
  var headings = {};
  document.querySelectorAll("h2").forEach(function (h) {
    var t = (h.textContent || "").trim();
    if (headings[t]) say("duplicate", "the section '" + t + "' appears twice");
    headings[t] = true;
  });
  if (document.querySelectorAll("table.pb-findings").length > 1)
    say("duplicate", document.querySelectorAll("table.pb-findings").length + " findings tables");

  var pre = document.createElement("pre");
  pre.id = "pb-layout-result";
  pre.textContent = JSON.stringify({width: W, dark: matchMedia("(prefers-color-scheme: dark)").matches, problems: problems});
  document.body.appendChild(pre);
})();
