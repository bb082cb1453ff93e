/* anywrap RecordHTML: the page's own script (player, charts, summary).
   All text from the report goes into the page through textContent, never as markup. */
(function () {
  "use strict";

  var R = JSON.parse(document.getElementById("report-data").textContent);
  var byId = function (id) { return document.getElementById(id); };
  var rows = R.envs.length ? R.envs[0].rows : 0;
  var state = { env: 0, frame: 0, playing: false, speed: 1, hover: false, acc: 0, last: null };
  var charts = [];
  var COLORS = {
    reward: "#e8590c", ret: "#2f9e44",
    action: ["#7048e8", "#ae3ec9", "#9c36b5", "#5f3dc4", "#862e9c", "#6741d9"],
    obs: ["#1c7ed6", "#1098ad", "#0b7285", "#364fc7", "#1971c2", "#0c8599"],
    info: ["#c2255c", "#a61e4d", "#d6336c", "#e64980"],
  };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(v) {
    if (v === null || v === undefined || !isFinite(v)) return "–";
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(3);
    if (Number.isInteger(v)) return String(v);
    return v.toFixed(a >= 100 ? 2 : a >= 1 ? 3 : 4);
  }
  function tickLabel(v) {
    if (v === null || v === undefined) return "";
    var a = Math.abs(v);
    if (a >= 1e9) return +(v / 1e9).toPrecision(3) + "G";
    if (a >= 1e6) return +(v / 1e6).toPrecision(3) + "M";
    if (a >= 1e4) return +(v / 1e3).toPrecision(3) + "k";
    if (a !== 0 && a < 1e-3) return v.toExponential(0);
    return String(+v.toPrecision(4));
  }
  function fmtTime(s) {
    if (s === null || s === undefined || !isFinite(s)) return "–";
    if (s < 1) return (s * 1000).toFixed(0) + " ms";
    if (s < 120) return s.toFixed(2) + " s";
    return Math.floor(s / 60) + " min " + (s % 60).toFixed(0) + " s";
  }
  function env() { return R.envs[state.env]; }

  // ------------------------------------------------------------ header and summary
  byId("env-id").textContent = R.env_id;
  byId("report-title").textContent = R.title;
  var meta = [R.kind === "vector" ? "vector env, " + R.num_envs + " sub-envs" : R.kind === "functional" ? "functional rollout" : "single env"];
  if (R.autoreset_mode) meta.push("autoreset " + R.autoreset_mode);
  meta.push(rows + " rows");
  meta.push(R.created);
  byId("report-meta").textContent = meta.join(" · ");

  function card(label, value, hint, small) {
    var c = el("div", "card");
    c.appendChild(el("div", "label", label));
    c.appendChild(el("div", small ? "value small" : "value", value));
    if (hint) c.appendChild(el("div", "hint", hint));
    return c;
  }

  function summary() {
    var e = env();
    var steps = e.kind.filter(function (k) { return k === 0; }).length;
    var eps = e.episodes;
    var done = eps.filter(function (p) { return p.end !== "running"; });
    var cards = byId("cards");
    cards.textContent = "";
    var total = 0;
    for (var r = 0; r < e.rows; r++) if (e.kind[r] === 0 && e.reward[r] !== null) total += e.reward[r];
    if (eps.length === 1) {
      cards.appendChild(card("Return", fmt(eps[0].return), eps[0].end === "running" ? "episode still running at the end" : "episode " + eps[0].end));
    } else {
      cards.appendChild(card("Return (all rows)", fmt(total), eps.length + " episodes or parts"));
    }
    cards.appendChild(card("Length", String(steps), steps === 1 ? "step" : "steps"));
    var sps = R.wall_time ? (steps / R.wall_time) : null;
    cards.appendChild(card("Wall time", fmtTime(R.wall_time), sps && isFinite(sps) ? fmt(Math.round(sps)) + " steps/s" : ""));
    var counts = {};
    done.forEach(function (p) { counts[p.end] = (counts[p.end] || 0) + 1; });
    var outcome = done.length === 1 ? done[0].end : done.length
      ? Object.keys(counts).map(function (k) { return counts[k] + " " + k; }).join(", ") : "running";
    cards.appendChild(card("Outcome", outcome, done.length + " of " + eps.length + " ended", true));
    cards.appendChild(card("Seed", R.seed === null ? "not seeded" : R.seed, "", true));
    if (R.kind !== "single") cards.appendChild(card("Sub-env", String(e.index), R.envs.length + " recorded of " + (R.num_envs || R.envs.length), true));
  }

  function episodesTable() {
    var t = byId("episodes");
    t.textContent = "";
    var head = el("tr");
    ["#", "rows", "length", "return", "end"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    t.appendChild(head);
    env().episodes.forEach(function (p, i) {
      var tr = el("tr", "ep");
      tr.dataset.first = p.first;
      tr.dataset.last = p.last;
      tr.appendChild(el("td", null, String(i + 1)));
      tr.appendChild(el("td", null, p.first + "–" + p.last));
      tr.appendChild(el("td", null, String(p.length)));
      tr.appendChild(el("td", null, fmt(p.return)));
      tr.appendChild(el("td", "end-" + p.end, p.end));
      tr.addEventListener("click", function () { seek(p.first); });
      t.appendChild(tr);
    });
    if (!env().episodes.length) {
      var tr = el("tr");
      var td = el("td", null, "no steps recorded");
      td.colSpan = 5;
      tr.appendChild(td);
      t.appendChild(tr);
    }
  }

  var stack = byId("stack");
  R.wrappers.forEach(function (w) { stack.appendChild(el("li", null, w)); });

  // ------------------------------------------------------------ sub-env chooser
  function chooser() {
    var box = byId("envs");
    box.textContent = "";
    if (R.envs.length < 2) { byId("envs-panel").style.display = "none"; return; }
    R.envs.forEach(function (e, i) {
      var b = el("button", i === state.env ? "on" : "");
      b.type = "button";
      b.appendChild(document.createTextNode("env " + e.index));
      var last = e.return.length ? e.return[e.return.length - 1] : null;
      b.appendChild(el("small", null, "return " + fmt(last)));
      b.addEventListener("click", function () { chooseEnv(i); });
      box.appendChild(b);
    });
  }

  // ------------------------------------------------------------ charts
  function seriesList() {
    var L = R.labels, out = [];
    out.push({ group: "Reward and return", label: "reward", get: function (e) { return e.reward; }, color: COLORS.reward, wide: true });
    out.push({ group: "Reward and return", label: "return", get: function (e) { return e.return; }, color: COLORS.ret, wide: true, fill: true });
    L.action.forEach(function (lab, j) {
      out.push({ group: "Actions", label: lab, get: function (e) { return e.action[j]; }, color: COLORS.action[j % COLORS.action.length], stepped: true });
    });
    L.obs.forEach(function (lab, j) {
      out.push({ group: "Observations", label: lab, get: function (e) { return e.obs[j]; }, color: COLORS.obs[j % COLORS.obs.length] });
    });
    L.info.forEach(function (lab, j) {
      out.push({ group: "Info", label: lab, get: function (e) { return e.info[j]; }, color: COLORS.info[j % COLORS.info.length] });
    });
    return out;
  }

  var xs = [];
  for (var i = 0; i < rows; i++) xs.push(i);

  function drawMarks(u) {
    // Episode ends (red: terminated, orange: truncated) and reset rows (blue) of the chosen sub-env.
    var e = env(), ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    ctx.lineWidth = Math.max(1, devicePixelRatio);
    ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
    for (var r = 0; r < e.rows; r++) {
      var color = null;
      if (e.kind[r] === 0 && e.terminated[r]) color = "rgba(224,49,49,.75)";
      else if (e.kind[r] === 0 && e.truncated[r]) color = "rgba(232,89,12,.75)";
      else if (e.kind[r] === 1 && r > 0) color = "rgba(59,91,219,.45)";
      if (!color) continue;
      var x = Math.round(u.valToPos(r, "x", true)) + 0.5;
      ctx.strokeStyle = color;
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + h);
      ctx.stroke();
    }
    ctx.restore();
  }

  function makeChart(s, grid) {
    var box = el("div", "chart");
    var title = el("div", "title");
    title.appendChild(el("span", null, s.label));
    var val = el("span", "val", "");
    title.appendChild(val);
    box.appendChild(title);
    grid.appendChild(box);
    var width = Math.max(200, box.clientWidth - 20);
    var axis = { stroke: "#6b7385", font: "11px system-ui, sans-serif", grid: { stroke: "#eef0f5", width: 1 }, ticks: { stroke: "#e3e7ee", width: 1, size: 4 } };
    var data = s.get(env());
    var present = data.filter(function (v) { return v !== null; }).length;
    // A value seen on few rows (an episode's statistics at its end) is drawn as dots.
    var sparse = present > 0 && present < Math.max(2, rows / 4);
    var series = { label: s.label, stroke: s.color, width: 1.6, points: { show: sparse, size: 6, fill: s.color } };
    if (s.fill) series.fill = s.color + "1f";
    if (s.stepped) series.paths = uPlot.paths.stepped({ align: 1 });
    var opts = {
      width: width,
      height: s.wide ? 150 : 120,
      legend: { show: false },
      cursor: { y: false, sync: { key: "anywrap-report" }, drag: { x: false, y: false, setScale: false }, points: { size: 7, fill: s.color } },
      scales: { x: { time: false } },
      axes: [
        Object.assign({ size: 26 }, axis),
        Object.assign({ size: 52, values: function (u, vals) { return vals.map(tickLabel); } }, axis),
      ],
      series: [{ label: "row" }, series],
      hooks: {
        draw: [drawMarks],
        setCursor: [function (u) {
          var idx = u.cursor.idx;
          if (idx === null || idx === undefined) idx = state.frame;
          val.textContent = "row " + idx + ": " + fmt(u.data[1][idx]);
        }],
      },
    };
    var u = new uPlot(opts, [xs, data], box);
    var head = el("div", "playhead");
    head.style.position = "absolute";
    head.style.top = "0";
    head.style.bottom = "0";
    head.style.width = "0";
    head.style.borderLeft = "2px solid rgba(59,91,219,.9)";
    head.style.pointerEvents = "none";
    u.over.appendChild(head);
    u.over.addEventListener("mouseenter", function () { state.hover = true; });
    u.over.addEventListener("mouseleave", function () { state.hover = false; setTimeout(follow, 0); });
    u.over.addEventListener("click", function () {
      if (u.cursor.idx !== null && u.cursor.idx !== undefined) seek(u.cursor.idx);
    });
    var chart = { u: u, s: s, box: box, head: head, val: val };
    charts.push(chart);
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(function () {
        var w = Math.max(200, box.clientWidth - 20);
        if (Math.abs(w - u.width) > 1) { u.setSize({ width: w, height: u.height }); place(chart); }
      }).observe(box);
    }
    return chart;
  }

  function buildCharts() {
    var host = byId("charts");
    var groups = {};
    seriesList().forEach(function (s) {
      var g = groups[s.group];
      if (!g) {
        var sec = el("section", "group");
        sec.appendChild(el("h2", null, s.group));
        var grid = el("div", s.wide ? "grid wide" : "grid");
        sec.appendChild(grid);
        host.appendChild(sec);
        g = groups[s.group] = grid;
      }
      makeChart(s, g);
    });
    if (R.notes.length) {
      var notes = el("section", "group notes");
      R.notes.forEach(function (n) { notes.appendChild(el("div", null, n)); });
      host.appendChild(notes);
    }
  }

  function place(c) {
    c.head.style.left = c.u.valToPos(state.frame, "x") + "px";
  }

  function follow() {
    // With no pointer on a chart, every chart's cursor sits on the frame shown.
    if (state.hover) return;
    charts.forEach(function (c) {
      c.u.setCursor({ left: c.u.valToPos(state.frame, "x"), top: 1 }, false);
      c.val.textContent = "row " + state.frame + ": " + fmt(c.u.data[1][state.frame]);
    });
  }

  // ------------------------------------------------------------ player
  var img = byId("frame"), scrub = byId("scrub"), playBtn = byId("play");
  var hasFrames = R.envs.some(function (e) { return e.frames && e.frames.some(function (f) { return f; }); });
  scrub.max = String(Math.max(0, rows - 1));
  if (!hasFrames) {
    img.style.display = "none";
    byId("screen").style.aspectRatio = "16 / 7";
    byId("noframe-note").textContent = R.notes.filter(function (n) { return n.indexOf("no frames") === 0; }).join(" ") || "no frames recorded";
  } else {
    byId("noframe").style.display = "none";
    img.addEventListener("load", function () {
      if (img.naturalWidth && !img.dataset.sized) {
        img.dataset.sized = "1";
        byId("screen").style.aspectRatio = img.naturalWidth + " / " + img.naturalHeight;
        if (img.naturalWidth < 256) img.className = "pixelated";
      }
    });
  }
  byId("status-fps").textContent = fmt(R.fps) + " fps at 1×";

  function frameData(r) {
    var f = env().frames;
    if (!f) return null;
    for (var k = r; k >= 0; k--) if (f[k]) return f[k];
    return null;
  }

  function badge(e, r) {
    var b = byId("badge");
    var k = e.kind[r];
    b.className = "badge";
    if (k === 0 && e.terminated[r]) { b.textContent = "terminated"; b.classList.add("terminated"); }
    else if (k === 0 && e.truncated[r]) { b.textContent = "truncated"; b.classList.add("truncated"); }
    else if (k === 1) { b.textContent = "reset"; b.classList.add("reset"); }
    else if (k === 2) { b.textContent = "waiting"; }
    else b.textContent = "";
  }

  function nowPanel(e, r) {
    var t = byId("now");
    t.textContent = "";
    function row(k, v) {
      var tr = el("tr");
      tr.appendChild(el("td", null, k));
      tr.appendChild(el("td", null, v));
      t.appendChild(tr);
    }
    var kinds = ["step", "reset", "waiting (another sub-env was reset)"];
    row("row", r + " of " + (e.rows - 1) + (R.steps ? " · run step " + R.steps[r] : ""));
    row("kind", kinds[e.kind[r]] || "?");
    row("reward", fmt(e.reward[r]));
    row("return", fmt(e.return[r]));
    if (e.kind[r] === 0) row("done", e.terminated[r] ? "terminated" : e.truncated[r] ? "truncated" : "no");
    R.labels.action.forEach(function (lab, j) { row(lab, fmt(e.action[j][r])); });
    R.labels.text.forEach(function (lab, j) {
      var v = e.text[j] ? e.text[j][r] : null;
      row(lab, v === null || v === undefined ? "–" : v);
    });
  }

  function setFrame(r) {
    r = Math.max(0, Math.min(rows - 1, r | 0));
    state.frame = r;
    var e = env();
    scrub.value = String(r);
    byId("status-step").textContent = "row " + r + " / " + Math.max(0, rows - 1);
    if (hasFrames) {
      var b64 = frameData(r);
      if (b64) {
        var url = "data:" + R.frame_mime + ";base64," + b64;
        if (img.getAttribute("src") !== url) img.src = url;
      }
    } else {
      byId("noframe-step").textContent = "row " + r;
    }
    badge(e, r);
    nowPanel(e, r);
    charts.forEach(place);
    follow();
    var trs = byId("episodes").querySelectorAll("tr.ep");
    for (var i = 0; i < trs.length; i++) {
      var on = r >= +trs[i].dataset.first && r <= +trs[i].dataset.last;
      trs[i].classList.toggle("on", on);
    }
    document.body.dataset.frame = String(r);
  }

  function seek(r) { pause(); setFrame(r); }

  function tick(ts) {
    if (!state.playing) return;
    if (state.last !== null) {
      state.acc += (ts - state.last) / 1000 * R.fps * state.speed;
      var n = Math.floor(state.acc);
      if (n > 0) {
        state.acc -= n;
        setFrame(state.frame + n);
        if (state.frame >= rows - 1) { pause(); return; }
      }
    }
    state.last = ts;
    requestAnimationFrame(tick);
  }

  function play() {
    if (rows < 2) return;
    if (state.frame >= rows - 1) setFrame(0);
    state.playing = true;
    state.last = null;
    state.acc = 0;
    playBtn.classList.add("playing");
    playBtn.title = "pause (space)";
    requestAnimationFrame(tick);
  }
  function pause() {
    state.playing = false;
    playBtn.classList.remove("playing");
    playBtn.title = "play (space)";
  }

  playBtn.addEventListener("click", function () { if (state.playing) pause(); else play(); });
  byId("first").addEventListener("click", function () { seek(0); });
  byId("back").addEventListener("click", function () { seek(state.frame - 1); });
  byId("fwd").addEventListener("click", function () { seek(state.frame + 1); });
  scrub.addEventListener("input", function () { pause(); setFrame(+scrub.value); });
  byId("speed").addEventListener("change", function (ev) { state.speed = +ev.target.value; });
  document.addEventListener("keydown", function (ev) {
    if (ev.target && (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT")) {
      if (ev.key !== " ") return;
    }
    if (ev.key === " ") { ev.preventDefault(); if (state.playing) pause(); else play(); }
    else if (ev.key === "ArrowLeft") seek(state.frame - 1);
    else if (ev.key === "ArrowRight") seek(state.frame + 1);
    else if (ev.key === "Home") seek(0);
    else if (ev.key === "End") seek(rows - 1);
  });

  function chooseEnv(i) {
    state.env = i;
    charts.forEach(function (c) { c.u.setData([xs, c.s.get(env())]); });
    chooser();
    summary();
    episodesTable();
    setFrame(state.frame);
  }

  // ------------------------------------------------------------ footer and start
  var foot = byId("footer");
  foot.textContent = "Written by anywrap " + R.anywrap_version + " (RecordHTML, report format " + R.version +
    ") · charts drawn with uPlot " + (R.uplot_version || "") + " (MIT licence, inlined) · nothing in this file is loaded from the network.";

  summary();
  chooser();
  episodesTable();
  buildCharts();
  setFrame(0);

  window.anywrapReport = {
    data: R,
    charts: charts.map(function (c) { return c.u; }),
    frame: function () { return state.frame; },
    seek: seek,
    play: play,
    pause: pause,
    chooseEnv: chooseEnv,
  };
})();
