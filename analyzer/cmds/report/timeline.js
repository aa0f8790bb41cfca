/* dltrace report: the timeline, drawn on a canvas from the export's
 * events (the same JSON as "export", which the Save button hands to
 * Perfetto).  Written before report.js in the page; report.js calls it
 * with the section to fill and its own helpers (h.el, h.dur, h.num,
 * h.plural, h.P: the address's presets). */
"use strict";
function dltTimeline(st, TL, h) {
	var el = h.el;
	var save = el("button", {id: "save-perfetto", text: "Save as Perfetto JSON"});
	save.addEventListener("click", function () {
		var a = el("a", {download: "dltrace-timeline.json",
			href: URL.createObjectURL(new Blob([JSON.stringify(TL)], {type: "application/json"}))});
		document.body.appendChild(a);
		a.click();
		a.remove();
	});
	var fit = el("button", {text: "Fit"});
	st.appendChild(el("div", {cls: "controls"}, fit, save,
		el("span", {cls: "muted", text: "wheel: zoom \u00b7 drag: pan \u00b7 shift+wheel: scroll tracks"})));
	var names = {}, rowsOf = {}, tracks = [], evs = [];
	var t0 = Infinity, t1 = -Infinity;
	TL.traceEvents.forEach(function (e) {
		if (e.ph === "M") {
			if (e.name === "process_name") names[e.pid] = e.args.name;
			return;
		}
		/* Counters (calls per second of a bounded trace) are Perfetto's
		 * to draw: the saved JSON keeps them. */
		if (e.ph === "C") return;
		var k = e.pid + ":" + e.tid;
		if (!(k in rowsOf)) { rowsOf[k] = tracks.length; tracks.push({pid: e.pid, tid: e.tid}); }
		evs.push(e);
		t0 = Math.min(t0, e.ts);
		t1 = Math.max(t1, e.ts + (e.dur || 0));
	});
	tracks.sort(function (a, b) { return a.pid - b.pid || a.tid - b.tid; });
	tracks.forEach(function (t, i) { rowsOf[t.pid + ":" + t.tid] = i; });
	var RH = 16, LW = 220, VH = Math.min(480, Math.max(RH * 3, tracks.length * RH + 4));
	var wrap = el("div", {id: "tl-wrap"});
	var cv = el("canvas", {id: "tl", "data-tracks": String(tracks.length), "data-events": String(evs.length)});
	var tip = el("div", {id: "tl-tip"});
	wrap.appendChild(cv);
	wrap.appendChild(tip);
	st.appendChild(wrap);
	if (!evs.length) { t0 = 0; t1 = 1; }
	var view = {a: t0, b: t1 + (t1 - t0) * 0.02 + 1, top: 0};
	var COL = {loader: "#6c8ebf", gpu: "#82b366", cuda: "#82b366", cudnn: "#d6b656", nccl: "#b85450",
		   wait: "#9673a6", stall: "#9673a6", process: "#999", finding: "#e51400"};
	function draw() {
		var dpr = window.devicePixelRatio || 1, W = wrap.clientWidth || 800;
		cv.width = W * dpr; cv.height = VH * dpr;
		cv.style.width = W + "px"; cv.style.height = VH + "px";
		var g = cv.getContext("2d");
		g.scale(dpr, dpr);
		var css = getComputedStyle(document.body);
		g.fillStyle = css.backgroundColor; g.fillRect(0, 0, W, VH);
		g.font = "11px sans-serif";
		var sx = (W - LW) / (view.b - view.a);
		var first = Math.floor(view.top / RH);
		for (var r = first; r < tracks.length && (r - first) * RH < VH; r++) {
			var y = (r - first) * RH;
			g.fillStyle = r % 2 ? "rgba(127,127,127,0.06)" : "rgba(0,0,0,0)";
			g.fillRect(0, y, W, RH);
			g.fillStyle = css.color;
			var tr = tracks[r];
			g.fillText(((names[tr.pid] || "process " + tr.pid) + " / " + tr.tid).slice(0, 40), 2, y + 12);
		}
		evs.forEach(function (e) {
			var r = rowsOf[e.pid + ":" + e.tid] - first;
			if (r < 0 || r * RH >= VH) return;
			var x = LW + (e.ts - view.a) * sx, w = (e.dur || 0) * sx;
			if (x + Math.max(w, 2) < LW || x > W) return;
			g.fillStyle = COL[e.cat] || "#888";
			if (e.ph === "X") {
				var xs = Math.max(x, LW);
				g.fillRect(xs, r * RH + 2, Math.max(1, x + w - xs), RH - 4);
			} else {
				g.fillRect(x - 1, r * RH + 1, 2, RH - 2);
			}
		});
		g.fillStyle = css.color;
		g.fillText(((view.b - view.a) / 1000).toFixed(3) + " ms shown", LW + 4, VH - 4);
	}
	function hit(mx, my) {
		var W = wrap.clientWidth, sx = (W - LW) / (view.b - view.a);
		var r = Math.floor((my + view.top) / RH), best = null;
		evs.forEach(function (e) {
			if (rowsOf[e.pid + ":" + e.tid] !== r) return;
			var x = LW + (e.ts - view.a) * sx, w = Math.max((e.dur || 0) * sx, 4);
			if (mx >= x - 2 && mx <= x + w) best = e;
		});
		return best;
	}
	cv.addEventListener("wheel", function (e) {
		e.preventDefault();
		if (e.shiftKey) {
			view.top = Math.max(0, Math.min(tracks.length * RH - RH, view.top + e.deltaY));
		} else {
			var W = wrap.clientWidth, at = view.a + (e.offsetX - LW) / (W - LW) * (view.b - view.a);
			var k = e.deltaY > 0 ? 1.25 : 0.8;
			view.a = at - (at - view.a) * k; view.b = at + (view.b - at) * k;
		}
		draw();
	}, {passive: false});
	var drag = null;
	cv.addEventListener("mousedown", function (e) { drag = {x: e.clientX, y: e.clientY, a: view.a, b: view.b, top: view.top}; });
	window.addEventListener("mouseup", function () { drag = null; });
	cv.addEventListener("mousemove", function (e) {
		if (drag) {
			var d = (e.clientX - drag.x) / (wrap.clientWidth - LW) * (drag.b - drag.a);
			view.a = drag.a - d; view.b = drag.b - d;
			view.top = Math.max(0, drag.top - (e.clientY - drag.y));
			draw();
			return;
		}
		var h = hit(e.offsetX, e.offsetY);
		if (!h) { tip.style.display = "none"; return; }
		tip.textContent = h.name + (h.dur ? " (" + (h.dur / 1000).toFixed(3) + " ms)" : "") +
			(h.args ? "\n" + JSON.stringify(h.args, null, 1).slice(0, 600) : "");
		tip.style.left = Math.min(e.offsetX + 12, wrap.clientWidth - 300) + "px";
		tip.style.top = (e.offsetY + 12) + "px";
		tip.style.display = "block";
	});
	cv.addEventListener("mouseleave", function () { tip.style.display = "none"; });
	fit.addEventListener("click", function () { view = {a: t0, b: t1 + (t1 - t0) * 0.02 + 1, top: 0}; draw(); });
	window.addEventListener("resize", draw);
	draw();

}
