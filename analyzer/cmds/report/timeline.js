/* dltrace report: the timeline, drawn on a canvas from the export's
 * events (the same JSON as "export", which the Save button hands to
 * Perfetto).  Written before report.js in the page; report.js calls it
 * with the section to fill and its own helpers (h.el, h.dur: durations
 * in nanoseconds for people, h.num, h.plural, h.P: the address's
 * presets, of which #threads=all or #threads=PID,PID unfolds threads).
 *
 * One row per process, coloured by what it was doing (the export's
 * args.state, decided in C where the stacks and the hang analysis are:
 * analyzer/cmds/export.c); a click on a process's label unfolds a row per
 * thread below it.  A ruler in its own strip above the rows gives the
 * time after the job's start.  What was drawn is also in the DOM (the
 * canvas's data-rows, and a visually hidden list #tl-rows with each
 * process's states in the order they came, data-states, and the last
 * before it ended or died, data-last) for screen readers and tests. */
"use strict";
function dltTimeline(st, TL, h) {
	var el = h.el;
	/* The states, most telling first: where a process's threads differ,
	 * its row shows the first of these that any of them is in.  A death
	 * ends everything; waiting for a peer is what hangs a job (the rank
	 * it waits for is elsewhere); a GPU call is where the work goes;
	 * blocked on a lock, a pipe or a child holds work up, where a sleep
	 * is the program's own choice; running is what is left.  Only the
	 * main thread and the threads whose waits say something of the
	 * process count: the export marks the others' waits background
	 * (gloo's loop, the store's server, a pool's idle worker wait for
	 * peers whatever the program does, and would paint every rank of a
	 * torch.distributed job "waiting", the one that sleeps too).  On a
	 * tie the main thread's wait is the one the tip names: it is the
	 * program's own code. */
	var STATES = ["dead", "waiting", "gpu", "blocked", "sleeping", "running"];
	var WORDS = {
		running: "running",
		waiting: "waiting for a peer",
		gpu: "in a GPU call",
		blocked: "blocked elsewhere (a lock, a pipe, a child, the disk)",
		sleeping: "sleeping",
		dead: "dead"
	};
	var RANK = {};
	STATES.forEach(function (s, i) { RANK[s] = i; });

	var save = el("button", {id: "save-perfetto", text: "Save as Perfetto JSON"});
	save.addEventListener("click", function () {
		var a = el("a", {download: "dltrace-timeline.json",
			href: URL.createObjectURL(new Blob([JSON.stringify(TL)], {type: "application/json"}))});
		document.body.appendChild(a);
		a.click();
		a.remove();
	});
	var fit = el("button", {text: "Fit"});
	var shown = el("span", {id: "tl-shown", cls: "muted"});
	st.appendChild(el("div", {cls: "controls"}, fit, save, shown,
		el("span", {cls: "muted", text: "click a process to show its threads \u00b7 wheel: zoom \u00b7 drag: pan \u00b7 shift+wheel: scroll rows"})));

	/* ---- the processes and threads of the events ---- */
	var procs = {}, order = [], nevents = 0;
	var t0 = Infinity, t1 = -Infinity;
	function proc(xpid) {
		var p = procs[xpid];
		if (!p) {
			p = procs[xpid] = {xpid: xpid, pid: null, rank: null, program: null, name: null,
				start: null, last: null, death: null, how: null, threads: {}, tids: [],
				marks: [], open: false, segs: null};
			order.push(p);
		}
		return p;
	}
	function thread(p, tid) {
		var t = p.threads[tid];
		if (!t) {
			t = p.threads[tid] = {tid: tid, name: null, evs: [], ivs: [], first: Infinity, segs: null};
			p.tids.push(tid);
		}
		return t;
	}
	function span(a, b) {
		if (a < t0) t0 = a;
		if (b > t1) t1 = b;
	}
	TL.traceEvents.forEach(function (e) {
		var a = e.args || {};
		if (e.ph === "M") {
			var p = proc(e.pid);
			if (e.name === "process_name") {
				p.name = a.name;
				p.pid = a.os_pid !== undefined ? a.os_pid : null;
				p.rank = a.rank !== undefined ? a.rank : null;
				p.program = a.program || null;
				if (typeof a.start === "number") { p.start = a.start; span(a.start, a.start); }
				if (typeof a.last_seen === "number") { p.last = a.last_seen; span(a.last_seen, a.last_seen); }
			} else if (e.name === "thread_name") {
				thread(p, e.tid).name = a.name;
			}
			return;
		}
		/* Counters (calls per second of a bounded trace) are Perfetto's
		 * to draw: the saved JSON keeps them. */
		if (e.ph === "C") return;
		var q = proc(e.pid);
		var end = e.ts + (e.dur || 0);
		span(e.ts, end);
		nevents++;
		if (e.cat === "finding") { q.marks.push(e); return; }
		if (a.state === "dead") {
			if (q.death === null || e.ts < q.death) { q.death = e.ts; q.how = a.how || null; }
		}
		var t = thread(q, e.tid);
		t.evs.push(e);
		if (e.ts < t.first) t.first = e.ts;
		if (e.ph === "X" && a.state && RANK[a.state] !== undefined)
			t.ivs.push({a: e.ts, b: end, st: a.state, bg: a.background === true, ev: e});
	});
	if (!isFinite(t0)) { t0 = 0; t1 = 1; }
	/* A wait still on when it was last written lasted as long as the
	 * process, as far as anyone knows: up to its end or its death.  One
	 * wait can have several records (a continuation, when the first left
	 * its chunk); the longest is the last word on it. */
	order.forEach(function (p) {
		p.tids.forEach(function (tid) {
			var t = p.threads[tid], last = {};
			t.ivs.forEach(function (v) {
				if (v.ev.cat !== "stall") return;
				var o = last[v.a];
				if (!o || v.b > o.b) last[v.a] = v;
			});
			t.ivs = t.ivs.filter(function (v) {
				if (v.ev.cat !== "stall") return true;
				if (last[v.a] !== v) return false;
				if (v.ev.args.ended === false) v.b = Infinity;
				return true;
			});
		});
	});
	/* A process that a finding says died (a crash, a kill) without the
	 * export's own mark of it: dead from its last sign of life. */
	var DEATHS = /^(error|warning|info) (CRASH|OOM_KILL|SIGKILL)$/;
	order.forEach(function (p) {
		if (p.death === null && p.last !== null &&
		    p.marks.some(function (m) { return DEATHS.test(m.name); }))
			p.death = p.last;
		if (p.start === null) p.start = t0;
		p.tids.sort(function (x, y) {
			return (x === p.pid ? -1 : 0) - (y === p.pid ? -1 : 0) || x - y;
		});
	});
	/* Ranks first, in rank order, then the others as the export wrote
	 * them (the job's order of its traces). */
	order.sort(function (x, y) {
		var rx = x.rank === null ? Infinity : x.rank, ry = y.rank === null ? Infinity : y.rank;
		return rx - ry || x.xpid - y.xpid;
	});

	/* ---- states over time ---- */
	/* The segments of a row from `from` to `to` (dead from death to the
	 * end of the job): at each moment the most telling state of the
	 * intervals that cover it (group 0, the main thread's, wins ties),
	 * else running. */
	function segments(ivs, from, to, death) {
		var out = [];
		if (death !== null && death < to) to = death;
		var pts = [];
		ivs.forEach(function (v) {
			var a = Math.max(v.a, from), b = Math.min(v.b, to);
			if (b > a) { pts.push({x: a, on: 1, v: v}); pts.push({x: b, on: 0, v: v}); }
		});
		pts.sort(function (p, q) { return p.x - q.x || p.on - q.on; });
		var active = [], at = from, k = 0;
		function best() {
			var b = null;
			for (var i = 0; i < active.length; i++) {
				var v = active[i];
				if (b === null || RANK[v.st] < RANK[b.st] || (RANK[v.st] === RANK[b.st] && v.g < b.g)) b = v;
			}
			return b;
		}
		function push(a, b, v) {
			if (b <= a) return;
			var st = v ? v.st : "running", ev = v ? v.ev : null, last = out[out.length - 1];
			/* One wait written in two records (a continuation) is one
			 * segment, named after its longer record. */
			if (last && last.st === st && last.b === a) {
				last.b = b;
				if (ev && (!last.ev || (ev.dur || 0) > (last.ev.dur || 0))) last.ev = ev;
				return;
			}
			out.push({a: a, b: b, st: st, ev: ev});
		}
		while (k < pts.length) {
			var x = pts[k].x;
			push(at, x, best());
			at = x;
			for (; k < pts.length && pts[k].x === x; k++) {
				if (pts[k].on) active.push(pts[k].v);
				else active.splice(active.indexOf(pts[k].v), 1);
			}
		}
		push(at, to, best());
		/* Dead to the end, whatever the view. */
		if (death !== null) out.push({a: death, b: Infinity, st: "dead", ev: null});
		return out;
	}
	function procEnd(p) {
		var end = p.last !== null ? p.last : p.start;
		p.tids.forEach(function (tid) {
			p.threads[tid].ivs.forEach(function (v) { if (v.b > end && isFinite(v.b)) end = v.b; });
		});
		return end;
	}
	function procSegs(p) {
		if (p.segs) return p.segs;
		var ivs = [];
		p.tids.forEach(function (tid) {
			p.threads[tid].ivs.forEach(function (v) {
				if (tid === p.pid) { v.g = 0; ivs.push(v); }
				else if (!v.bg) { v.g = 1; ivs.push(v); }
			});
		});
		p.segs = segments(ivs, p.start, procEnd(p), p.death);
		return p.segs;
	}
	function threadSegs(p, t) {
		if (t.segs) return t.segs;
		t.ivs.forEach(function (v) { v.g = 0; });
		var from = t.tid === p.pid ? p.start : Math.max(p.start, t.first);
		t.segs = segments(t.ivs, from, procEnd(p), p.death);
		return t.segs;
	}
	function label(p) {
		var s = [];
		if (p.rank !== null) s.push("rank " + p.rank);
		if (p.pid !== null) s.push("pid " + p.pid);
		if (p.program) s.push(p.program);
		return s.length ? s.join(" \u00b7 ") : (p.name || "process " + p.xpid);
	}
	function threadLabel(p, t) {
		return t.name || (t.tid === p.pid ? "main thread " : "thread ") + t.tid;
	}
	/* Times for people: durations in nanoseconds through h.dur, times as
	 * an offset after the job's start (the export's ts are microseconds
	 * since then). */
	function durUs(us) { return h.dur(Math.round(Math.abs(us) * 1000)); }
	function at(us) {
		if (Math.abs(us) < 0.0005) return "+0 s";
		return (us < 0 ? "\u2212" : "+") + durUs(us);
	}

	/* ---- the legend, and what was drawn, in the DOM ---- */
	var legend = el("div", {id: "tl-legend", role: "list", "aria-label": "timeline colours"});
	["running", "waiting", "sleeping", "gpu", "blocked", "dead"].forEach(function (s) {
		legend.appendChild(el("span", {cls: "tl-key", role: "listitem", "data-state": s},
			el("span", {cls: "tl-swatch", "data-state": s}), WORDS[s]));
	});
	st.appendChild(legend);
	var list = el("ul", {id: "tl-rows", cls: "tl-sr", "aria-label": "what each process did over time"});
	order.forEach(function (p) {
		var segs = procSegs(p), seen = [], time = {}, last = null;
		segs.forEach(function (s) {
			if (!(s.st in time)) { seen.push(s.st); time[s.st] = 0; }
			if (s.st !== "dead") { time[s.st] += s.b - s.a; last = s.st; }
		});
		var words = seen.map(function (s) {
			return s === "dead" ? "dead from " + at(p.death) + (p.how ? " (" + p.how + ")" : "")
				: WORDS[s] + " " + durUs(time[s]);
		});
		list.appendChild(el("li", {"data-xpid": String(p.xpid), "data-pid": p.pid === null ? "" : String(p.pid),
			"data-rank": p.rank === null ? "" : String(p.rank), "data-states": seen.join(","),
			"data-last": last || ""},
			label(p) + ": " + words.join(", ")));
	});
	st.appendChild(list);

	/* ---- the canvas ---- */
	/* Threads unfolded from the address: #threads=all, or pids
	 * (#threads=22158,22159), for a link that shows them. */
	var pre = String((h.P && h.P.threads) || "").split(",");
	order.forEach(function (p) {
		p.open = pre[0] === "all" || (p.pid !== null && pre.indexOf(String(p.pid)) >= 0);
	});
	var RH = 18, LW = 260, AX = 24, MAXH = 480;
	var rows = [];
	function layout() {
		rows = [];
		order.forEach(function (p) {
			rows.push({p: p, t: null});
			if (p.open) p.tids.forEach(function (tid) { rows.push({p: p, t: p.threads[tid]}); });
		});
		cv.setAttribute("data-rows", String(rows.length));
		var nth = order.reduce(function (n, p) { return n + (p.open ? p.tids.length : 0); }, 0);
		cv.setAttribute("data-threads-shown", String(nth));
	}
	var wrap = el("div", {id: "tl-wrap"});
	var cv = el("canvas", {id: "tl", "data-processes": String(order.length),
		"data-events": String(nevents), role: "img",
		"aria-label": "timeline of " + h.num(order.length) + (order.length === 1 ? " process" : " processes") + " (the list below says the same in words)"});
	var tip = el("div", {id: "tl-tip"});
	wrap.appendChild(cv);
	wrap.appendChild(tip);
	st.appendChild(wrap);
	layout();
	var full = function () { return {a: t0, b: t1 + (t1 - t0) * 0.02 + 1, top: 0}; };
	var view = full();
	function height() { return AX + Math.min(MAXH, Math.max(RH * 2, rows.length * RH + 4)); }
	function colours() {
		var cs = getComputedStyle(document.documentElement), c = {};
		STATES.forEach(function (s) { c[s] = cs.getPropertyValue("--tl-" + s).trim() || "#888"; });
		return c;
	}
	/* Ruler steps of 1, 2 or 5 times a power of ten microseconds, or of
	 * minutes and hours when longer. */
	function step(spanUs, px) {
		var want = spanUs / Math.max(1, px / 110), steps = [];
		for (var e = 0; e <= 10; e++)
			[1, 2, 5].forEach(function (m) { steps.push(m * Math.pow(10, e)); });
		[60e6, 120e6, 300e6, 600e6, 1200e6, 1800e6, 3600e6, 7200e6, 21600e6].forEach(function (s) { steps.push(s); });
		steps.sort(function (x, y) { return x - y; });
		for (var i = 0; i < steps.length; i++)
			if (steps[i] >= want) return steps[i];
		return steps[steps.length - 1];
	}
	function draw() {
		var dpr = window.devicePixelRatio || 1, W = wrap.clientWidth || 800, H = height();
		cv.width = W * dpr; cv.height = H * dpr;
		cv.style.width = W + "px"; cv.style.height = H + "px";
		var g = cv.getContext("2d");
		g.scale(dpr, dpr);
		var css = getComputedStyle(document.body), C = colours();
		g.fillStyle = css.backgroundColor; g.fillRect(0, 0, W, H);
		g.font = "11px sans-serif";
		g.textBaseline = "middle";
		var sx = (W - LW) / (view.b - view.a);
		function X(t) { return LW + (t - view.a) * sx; }
		/* The ruler, in its own strip: nothing below it is written over. */
		var s = step(view.b - view.a, W - LW);
		g.fillStyle = css.color;
		g.fillText("after the job's start", 4, AX / 2);
		g.strokeStyle = "rgba(127,127,127,0.35)";
		g.beginPath();
		for (var tk = Math.ceil(view.a / s) * s; tk <= view.b; tk += s) {
			var x = Math.round(X(tk)) + 0.5;
			if (x < LW) continue;
			g.moveTo(x, AX - 6); g.lineTo(x, H);
			var txt = at(tk), tw = g.measureText(txt).width;
			if (x + 3 + tw < W) g.fillText(txt, x + 3, AX / 2 - 2);
		}
		g.moveTo(0, AX - 0.5); g.lineTo(W, AX - 0.5);
		g.moveTo(LW - 0.5, 0); g.lineTo(LW - 0.5, H);
		g.stroke();
		var first = Math.floor(view.top / RH), vh = H - AX;
		for (var r = first; r < rows.length && (r - first) * RH < vh; r++) {
			var y = AX + (r - first) * RH, row = rows[r], p = row.p;
			if (r % 2) { g.fillStyle = "rgba(127,127,127,0.07)"; g.fillRect(0, y, W, RH); }
			g.save();
			g.beginPath(); g.rect(0, y, LW - 4, RH); g.clip();
			g.fillStyle = css.color;
			g.fillText(row.t ? "      " + threadLabel(p, row.t)
				: (p.tids.length ? (p.open ? "\u25be " : "\u25b8 ") : "   ") + label(p), 4, y + RH / 2);
			g.restore();
			g.save();
			g.beginPath(); g.rect(LW, y, W - LW, RH); g.clip();
			var segs = row.t ? threadSegs(p, row.t) : procSegs(p);
			var lastX = -1, lastSt = null;
			for (var i = 0; i < segs.length; i++) {
				/* Whole pixels: no seam where one wait's record
				 * follows another's. */
				var sg = segs[i], xa = Math.round(Math.max(LW - 1, X(sg.a))), xb = Math.round(Math.min(W + 1, X(sg.b)));
				if (xb < LW || xa > W) continue;
				/* Many segments in one pixel: the first drawn there
				 * stays unless a more telling one comes. */
				if (Math.floor(xb) <= lastX && RANK[sg.st] >= RANK[lastSt]) continue;
				g.fillStyle = C[sg.st];
				var h2 = row.t ? RH - 8 : RH - 4;
				g.fillRect(xa, y + (RH - h2) / 2, Math.max(1, xb - xa), h2);
				lastX = Math.floor(xb); lastSt = sg.st;
			}
			if (row.t) {
				/* A thread's instants (loads, forks, exits) as ticks. */
				g.fillStyle = css.color;
				row.t.evs.forEach(function (e) {
					if (e.ph === "X") return;
					var x = X(e.ts);
					if (x >= LW && x <= W) g.fillRect(x - 0.5, y + 1, 1, RH - 2);
				});
			} else {
				/* The findings on the process: a mark at the top. */
				g.fillStyle = css.color;
				p.marks.forEach(function (m) {
					var x = X(m.ts);
					if (x < LW - 4 || x > W + 4) return;
					g.beginPath(); g.moveTo(x - 4, y + 1); g.lineTo(x + 4, y + 1); g.lineTo(x, y + 7); g.fill();
				});
			}
			g.restore();
		}
		shown.textContent = durUs(view.b - view.a) + " shown, from " + at(view.a);
	}

	/* ---- what is under the pointer ---- */
	function rowAt(my) {
		if (my < AX) return null;
		return rows[Math.floor((my - AX + view.top) / RH)] || null;
	}
	function argsText(a) {
		var out = [];
		Object.keys(a || {}).forEach(function (k) {
			/* The state is the tip's first line; "ended" is said as
			 * "not over when last seen". */
			if (k === "state" || k === "background" || k === "ended" || k === "evidence" || k === "fix") return;
			var v = a[k];
			if (v === null || v === "" || typeof v === "object" || (k === "fd" && v < 0)) return;
			out.push(k.replace(/_/g, " ") + ": " + String(v).slice(0, 200));
		});
		return out.join("\n");
	}
	function hit(mx, my) {
		var row = rowAt(my);
		if (!row || mx < LW) return null;
		var W = wrap.clientWidth, sx = (W - LW) / (view.b - view.a);
		var t = view.a + (mx - LW) / sx, slop = 3 / sx;
		var p = row.p, lines = [];
		if (!row.t) {
			var m = null;
			p.marks.forEach(function (e) { if (Math.abs(e.ts - t) <= 4 / sx) m = e; });
			if (m) return m.name + " at " + at(m.ts) + "\n" + ((m.args && m.args.message) || "");
		} else {
			var best = null;
			row.t.evs.forEach(function (e) {
				if (e.ph !== "X" && Math.abs(e.ts - t) <= slop) best = e;
			});
			if (best) return best.name + " at " + at(best.ts) + (best.args ? "\n" + argsText(best.args) : "");
		}
		var segs = row.t ? threadSegs(p, row.t) : procSegs(p), sg = null;
		for (var i = 0; i < segs.length; i++)
			if (segs[i].a <= t + slop && segs[i].b >= t - slop) { sg = segs[i]; if (segs[i].a <= t && segs[i].b >= t) break; }
		if (!sg) return null;
		lines.push((row.t ? threadLabel(p, row.t) : label(p)) + ": " + WORDS[sg.st]);
		if (sg.st === "dead")
			lines.push("from " + at(sg.a) + (p.how ? ": " + p.how : ""));
		else
			lines.push(durUs(sg.b - sg.a) + ", " + at(sg.a) + " to " + at(sg.b));
		if (sg.ev) {
			var e = sg.ev;
			lines.push(e.name + (e.tid !== p.pid && !row.t ? " (thread " + e.tid + ")" : "") +
				(e.dur ? " for " + durUs(e.dur) : "") +
				(e.args && e.args.ended === false ? ", not over when last seen" : ""));
			if (e.args && e.args.background)
				lines.push("a helper thread's idle wait: not counted in the process's row");
			var more = argsText(e.args);
			if (more) lines.push(more);
		}
		return lines.join("\n");
	}

	/* ---- zoom, pan, scroll, unfold ---- */
	function scrollMax() { return Math.max(0, rows.length * RH - (height() - AX)); }
	cv.addEventListener("wheel", function (e) {
		e.preventDefault();
		if (e.shiftKey) {
			view.top = Math.max(0, Math.min(scrollMax(), view.top + (e.deltaY || e.deltaX)));
		} else {
			var W = wrap.clientWidth, x = Math.max(LW, e.offsetX);
			var t = view.a + (x - LW) / (W - LW) * (view.b - view.a);
			var k = e.deltaY > 0 ? 1.25 : 0.8;
			view.a = t - (t - view.a) * k; view.b = t + (view.b - t) * k;
		}
		draw();
	}, {passive: false});
	var drag = null;
	cv.addEventListener("mousedown", function (e) {
		drag = {x: e.clientX, y: e.clientY, ox: e.offsetX, oy: e.offsetY, a: view.a, b: view.b, top: view.top, moved: false};
	});
	window.addEventListener("mouseup", function () {
		var d = drag;
		drag = null;
		if (!d || d.moved || d.ox >= LW) return;
		var row = rowAt(d.oy);
		if (!row || row.t || !row.p.tids.length) return;
		row.p.open = !row.p.open;
		layout();
		view.top = Math.min(view.top, scrollMax());
		draw();
	});
	cv.addEventListener("mousemove", function (e) {
		if (drag) {
			if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 3) drag.moved = true;
			if (!drag.moved) return;
			var d = (e.clientX - drag.x) / (wrap.clientWidth - LW) * (drag.b - drag.a);
			view.a = drag.a - d; view.b = drag.b - d;
			view.top = Math.max(0, Math.min(scrollMax(), drag.top - (e.clientY - drag.y)));
			draw();
			return;
		}
		var row = rowAt(e.offsetY);
		cv.style.cursor = row && !row.t && e.offsetX < LW && row.p.tids.length ? "pointer" : "";
		var text = hit(e.offsetX, e.offsetY);
		if (!text) { tip.style.display = "none"; return; }
		tip.textContent = text.slice(0, 1200);
		tip.style.left = Math.max(0, Math.min(e.offsetX + 12, wrap.clientWidth - 320)) + "px";
		tip.style.top = (e.offsetY + 14) + "px";
		tip.style.display = "block";
	});
	cv.addEventListener("mouseleave", function () { tip.style.display = "none"; });
	fit.addEventListener("click", function () { view = full(); draw(); });
	window.addEventListener("resize", draw);
	draw();
}
