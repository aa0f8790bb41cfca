/* dltrace report: draws the page from the JSON in #dlt-data.  Every text
 * from the traces goes into the page as a text node, never as markup:
 * paths and messages are whatever bytes the traced program had.
 *
 * The first screen is the answer: one headline per finding (its evidence
 * folded below it), for a hang a picture of who waits for whom, for a
 * death the process tree down to the dead.  The rest follows, summarised
 * and behind filters.  Values are shown for people (durations, wall-clock
 * times, sizes, frames as "function (library)"); the raw values stay in
 * the embedded JSON, for tools. */
"use strict";
(function () {
	var errors = 0;
	window.addEventListener("error", function () {
		errors++;
		document.body.setAttribute("data-errors", String(errors));
	});
	/* The policy in the head blocks every request; each one tried is
	 * counted, so that a test can tell that none was. */
	var violations = 0;
	document.addEventListener("securitypolicyviolation", function () {
		violations++;
		document.body.setAttribute("data-csp-violations", String(violations));
	});
	var D = JSON.parse(document.getElementById("dlt-data").textContent);
	var SEVS = ["error", "warning", "info"];
	/* Preset views from the address: #libs=text&failed=1&rank=3. */
	var P = {};
	location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
		var i = kv.indexOf("=");
		if (i > 0)
			P[decodeURIComponent(kv.slice(0, i))] =
				decodeURIComponent(kv.slice(i + 1));
	});

	function el(tag, attrs) {
		var e = document.createElement(tag);
		for (var k in attrs || {}) {
			if (k === "text") e.textContent = attrs[k];
			else if (k === "cls") e.className = attrs[k];
			else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), attrs[k]);
			else e.setAttribute(k, attrs[k]);
		}
		for (var i = 2; i < arguments.length; i++) {
			var c = arguments[i];
			if (c === null || c === undefined) continue;
			e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
		}
		return e;
	}
	function flat(x) {
		return x && typeof x === "object" && !Array.isArray(x) &&
			Object.keys(x).every(function (k) { return x[k] === null || typeof x[k] !== "object"; });
	}
	function base(p) { return p ? String(p).replace(/.*\//, "") : "?"; }
	function dir(p) { var s = String(p || ""), i = s.lastIndexOf("/"); return i > 0 ? s.slice(0, i) : (i === 0 ? "/" : "(no file path)"); }
	function plural(n, w, ws) { return num(n) + " " + (n === 1 ? w : (ws || w + "s")); }
	function has(v) { return v !== null && v !== undefined; }
	function who(f) {
		var s = [];
		if (has(f.rank) && f.rank >= 0) s.push("rank " + f.rank);
		if (f.pid) s.push("pid " + f.pid);
		return s.join(" \u00b7 ");
	}
	/* Durations as analyzer/util/units.c writes them. */
	function dur(ns) {
		var us = ns / 1e3, ms = us / 1e3, s = ms / 1e3;
		if (ns === 0) return "0 \u00b5s";
		if (ns < 5) return "< 0.01 \u00b5s";
		if (us < 0.995) return us.toFixed(2) + " \u00b5s";
		if (us < 9.95) return us.toFixed(1) + " \u00b5s";
		if (us < 999.5) return us.toFixed(0) + " \u00b5s";
		if (ms < 9.95) return ms.toFixed(1) + " ms";
		if (ms < 999.5) return ms.toFixed(0) + " ms";
		if (s < 59.95) return s.toFixed(1) + " s";
		if (s < 59.95 * 60) return (s / 60).toFixed(1) + " min";
		return (s / 3600).toFixed(1) + " h";
	}
	function num(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }

	/* ---- values for people ----
	 * The rules the text output follows too (docs/usage.md): a key's
	 * suffix says what its number is. */
	var procs = (D.check && D.check.processes) || [];
	var findings = (D.check && D.check.findings) || [];
	var rows = D.hangs || [];
	var m = D.meta || {};
	/* The job's start: the earliest trace's, the timeline's zero. */
	var START_MS = has(m.start_unix_ns) ? m.start_unix_ns / 1e6 :
		Date.parse(((D.timeline || {}).otherData || {}).time_zero_utc || "");
	function pad(n, w) { n = String(n); while (n.length < (w || 2)) n = "0" + n; return n; }
	function zone(d) {
		try {
			var z = new Intl.DateTimeFormat("en-US", {timeZoneName: "short"}).formatToParts(d)
				.filter(function (p) { return p.type === "timeZoneName"; })[0];
			if (z) return z.value;
		} catch (e) { /* an old browser: the offset below */ }
		var o = -d.getTimezoneOffset();
		return "UTC" + (o < 0 ? "-" : "+") + pad(Math.floor(Math.abs(o) / 60)) + ":" + pad(Math.abs(o) % 60);
	}
	/* Wall-clock time in the viewer's time zone, to the millisecond. */
	function wallMs(ms) {
		var d = new Date(Math.floor(ms));
		if (isNaN(d.getTime())) return "?";
		return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
			pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." +
			pad(d.getMilliseconds(), 3) + " " + zone(d);
	}
	function afterStart(ms) {
		if (!isFinite(START_MS) || !isFinite(ms)) return "";
		var d = (ms - START_MS) * 1e6;
		return d >= 0 ? "+" + dur(d) + " after start" : dur(-d) + " before start";
	}
	function when(ns) {
		var ms = ns / 1e6, a = afterStart(ms);
		return wallMs(ms) + (a ? " (" + a + ")" : "");
	}
	function bytes(n) {
		if (n < 1024) return num(n) + " B";
		var u = ["KiB", "MiB", "GiB", "TiB"], i = -1;
		do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
		return (n < 10 ? n.toFixed(1) : n.toFixed(0)) + " " + u[i];
	}
	/* One native frame as people read it: "clock_nanosleep+0x65
	 * (libc.so.6)", "python3.11+0x5b50f8 (no symbol)". */
	function frame(s) {
		s = String(s).trim();
		var x = /^(.*?) \[no symbol[^\]]*\]$/.exec(s);
		if (x) return x[1] + " (no symbol)";
		if (/ \([^()]*\)$/.test(s)) return s;
		x = /^([^!\s]+)!(.+)$/.exec(s);
		if (x) return x[2] + " (" + x[1] + ")";
		if (/^[^\s]+\+0x[0-9a-fA-F]+$/.test(s)) return s + " (no symbol)";
		return s;
	}
	/* A stack as a list of frames, innermost first: "a < b < c" is
	 * innermost first already, "c \u2192 b \u2192 a" outermost first. */
	function frames(s) {
		s = String(s);
		if (s.indexOf(" < ") >= 0) return s.split(" < ").map(frame);
		if (s.indexOf(" \u2192 ") >= 0) return s.split(" \u2192 ").reverse().map(frame);
		return [frame(s)];
	}
	/* Frames in prose (headlines, detail clauses, fixes): the function
	 * and its library, without the offset. */
	function prose(s) {
		if (!has(s)) return "";
		return String(s).replace(/\b([A-Za-z_][\w.+-]*)!([^\s;,!]+?)\+0x[0-9a-fA-F]+/g, "$2 ($1)")
			.replace(/\b([A-Za-z_][\w.+-]*\.so[\w.]*)!([^\s;,!()]+)/g, "$2 ($1)");
	}
	var WALL = /_(unix|realtime)_ns$/, FILETIME = /^(mtime|ctime|atime)_ns$/;
	/* A key as people read it: "since_unix_ns" is "since". */
	function label(k) {
		return String(k).replace(WALL, "").replace(/_offset_ns$/, "").replace(/_(ns|kb|bytes|us|ms|s)$/, "")
			.replace(/_/g, " ");
	}
	/* A scalar for people, by its key (and the object it is in: a
	 * file's "size" is bytes, a job's is ranks); null when the key says
	 * nothing about the number. */
	function scalar(k, v, o) {
		if (typeof v === "boolean") return v ? "yes" : "no";
		if (typeof v !== "number") return null;
		k = String(k);
		if (WALL.test(k)) return when(v);
		if (FILETIME.test(k)) return wallMs(v / 1e6);
		if (/_offset_ns$/.test(k)) return (v < 0 ? "-" : "+") + dur(Math.abs(v));
		if (/_ns$/.test(k)) return dur(v);
		if (/_us$/.test(k)) return dur(v * 1e3);
		if (/_ms$/.test(k)) return dur(v * 1e6);
		if (/(^|_)s$/.test(k)) return v < 60 ? v.toFixed(2) + " s" : dur(v * 1e9);
		if (/_kb$/.test(k)) return bytes(v * 1024);
		if (/(^|_)bytes$/.test(k) || (/(^|_)size$/.test(k) && o && (has(o.path) || has(o.inode)))) return bytes(v);
		return null;
	}
	function isStack(k, v) { return typeof v === "string" && /(^|_)stack$/.test(k) && /( < | \u2192 |!|\+0x)/.test(v); }
	/* Long lists stay one click away. */
	function fold(n, what, body) {
		return n > 6 ? el("details", null, el("summary", {text: plural(n, what)}), body) : body;
	}
	/* A value of the evidence: scalars as text, stacks as frames, arrays
	 * as lists, objects as nested tables; empty values are left out. */
	function value(v, k, o) {
		if (v === null || typeof v !== "object") {
			if (isStack(k, v)) {
				var fs = frames(v);
				return fold(fs.length, "frame", el("pre", {cls: "frames", text: fs.join("\n")}));
			}
			var h = scalar(k, v, o);
			if (h !== null && WALL.test(k)) {
				/* The time and how long after the start, each kept whole. */
				var at = / \((.*)\)$/.exec(h);
				return el("span", null, el("span", {cls: "nw", text: at ? h.slice(0, at.index) : h}),
					at ? " " : null, at ? el("span", {cls: "nw muted", text: "(" + at[1] + ")"}) : null);
			}
			/* A number for people stays on one line ("4.0 s"). */
			return el("span", {cls: h === null ? "mono" : h.length < 24 ? "nw" : "", text: h === null ? prose(String(v)) : h});
		}
		if (Array.isArray(v)) {
			var out, scalars = v.every(function (x) { return x === null || typeof x !== "object"; });
			if (scalars && (k === "frames" || /stack$/.test(k || "") && !/python/.test(k || ""))) {
				out = el("pre", {cls: "frames", text: v.map(frame).join("\n")});
				return fold(v.length, "frame", out);
			} else if (scalars) {
				out = el("pre", {text: v.map(function (x) { var h = scalar(k, x); return h === null ? String(x) : h; }).join("\n")});
			} else if (v.every(flat)) {
				/* Rows of one shape (tried paths, ranks): one table. */
				var keys = [];
				v.forEach(function (x) {
					Object.keys(x).forEach(function (c) { if (keys.indexOf(c) < 0 && shown(x[c])) keys.push(c); });
				});
				out = el("table");
				var hr = el("tr");
				keys.forEach(function (c) { hr.appendChild(el("th", {text: label(c)})); });
				out.appendChild(hr);
				v.forEach(function (x) {
					var tr = el("tr");
					keys.forEach(function (c) { tr.appendChild(el("td", null, shown(x[c]) ? value(x[c], c, x) : null)); });
					out.appendChild(tr);
				});
			} else {
				out = el("ol");
				v.forEach(function (x) { out.appendChild(el("li", null, value(x, k))); });
			}
			return v.length > 6 ? el("details", null, el("summary", {text: plural(v.length, "entry", "entries")}), out) : out;
		}
		var t = el("table", {cls: "kv"});
		Object.keys(v).forEach(function (c) {
			if (shown(v[c])) t.appendChild(el("tr", null, el("th", {text: label(c)}), el("td", null, value(v[c], c, v))));
		});
		return t;
	}
	function shown(x) { return x !== null && x !== undefined && x !== "" && !(Array.isArray(x) && !x.length); }
	/* "sleep_before_collective.py:12 in load_batch" of a Python frame
	 * with its whole path. */
	function pyShort(s) { return String(s || "").replace(/^.*\/(?=[^\/]*:\d)/, ""); }

	/* ---- the process tree (parents by host, run and pid) ---- */
	var byKey = {}, byTrace = {}, byPid = {};
	procs.forEach(function (p, i) {
		byKey[p.host + "/" + p.run + "/" + p.pid] = i;
		if (p.trace) byTrace[p.trace] = i;
		byPid[p.pid] = i;
	});
	var parent = procs.map(function () { return -1; });
	var kids = procs.map(function () { return []; }), roots = [];
	procs.forEach(function (p, i) {
		var k = byKey[p.host + "/" + p.run + "/" + p.ppid];
		if (k !== undefined && k !== i) { kids[k].push(i); parent[i] = k; } else roots.push(i);
	});
	function procName(p) {
		return [has(p.rank) && p.rank >= 0 ? "rank " + p.rank : null, "pid " + p.pid, base(p.exe)]
			.filter(Boolean).join(" \u00b7 ");
	}
	function failed(p) {
		return p.signal || (has(p.exit_code) && p.exit_code > 0) ||
			(p.findings && p.findings.error > 0);
	}
	var DEATHS = /^(CRASH|OOM_KILL|SIGKILL|SIGNAL_SENT)$/;
	var deaths = {};
	findings.forEach(function (f) {
		if (DEATHS.test(f.code) && f.trace) (deaths[f.trace] = deaths[f.trace] || []).push(f);
	});

	/* ---- header ---- */
	var redacted = m.redacted || 0;
	var written = Date.parse(m.written_utc || "");
	document.body.appendChild(el("header", null,
		el("h1", {text: m.title || "dltrace report"}),
		el("div", {cls: "meta"},
			"dltrace " + (m.version || "?") + " \u00b7 written " + (isFinite(written) ? wallMs(written) : "?") +
			" by ", el("code", {id: "command", title: (m.command || []).join(" "), text: (m.command || []).join(" ")})),
		el("div", {cls: "meta", id: "privacy"},
			"Privacy: only allow-listed environment variables are traced (docs/privacy.md); " +
			(redacted ? plural(redacted, "value") + " shown as <redacted> (names that look secret)."
				  : "no value was redacted in this report."))));
	var nav = el("nav");
	[["verdict", "Verdict"]].concat(D.diff ? [["changes", "What changed"]] : []).concat([["timeline", "Timeline"], ["hangs", "Hangs"],
	 ["job", "Processes"], ["gpu", "GPU calls"], ["libs", "Libraries"], ["env", "Environment"], ["cudnn", "cuDNN"]]).forEach(function (s) {
		nav.appendChild(el("a", {href: "#" + s[0], text: s[1], "data-section": s[0]}));
	});
	function goTo(id) {
		var t = document.getElementById(id);
		if (!t) return;
		/* A folded block opens where it is linked to. */
		for (var e = t; e; e = e.parentElement) if (e.tagName === "DETAILS") e.open = true;
		t.scrollIntoView();
	}
	document.body.addEventListener("click", function (e) {
		/* The address's hash holds view presets; sections and findings
		 * are scrolled to. */
		var a = e.target.closest && e.target.closest("a[data-section], a[data-goto]");
		if (!a) return;
		e.preventDefault();
		goTo(a.getAttribute("data-section") || a.getAttribute("data-goto"));
	});
	document.body.appendChild(nav);
	var main = el("main");
	document.body.appendChild(main);
	function section(id, title) {
		var s = el("section", {id: id}, el("h2", {text: title}));
		main.appendChild(s);
		return s;
	}

	/* ---- verdict ---- */
	/* Findings that say the same thing about several processes (ranks of
	 * one job) are one block, as check's text shows them. */
	var groups = [], gindex = {};
	findings.forEach(function (f, i) {
		var k = [f.severity, f.code, f.message].join("\u0000");
		if (!(k in gindex)) { gindex[k] = groups.length; groups.push({f: f, all: [], id: "finding-" + i}); }
		groups[gindex[k]].all.push(f);
	});
	function groupWho(g) {
		if (g.all.length === 1) return who(g.f);
		var ranks = g.all.filter(function (f) { return has(f.rank) && f.rank >= 0; });
		if (ranks.length === g.all.length)
			return "ranks " + ranges(ranks.map(function (f) { return f.rank; }));
		var pids = g.all.map(function (f) { return f.pid; }).filter(Boolean);
		return plural(g.all.length, "process", "processes") + ": pid " + pids.slice(0, 8).join(", ") +
			(pids.length > 8 ? ", \u2026 (" + (pids.length - 8) + " more)" : "");
	}
	/* "0, 2\u20135, 9" */
	function ranges(ns) {
		ns = ns.slice().sort(function (a, b) { return a - b; });
		var out = [];
		for (var i = 0; i < ns.length; i++) {
			var j = i;
			while (j + 1 < ns.length && ns[j + 1] <= ns[j] + 1) j++;
			out.push(j > i + 1 ? ns[i] + "\u2013" + ns[j] : (j > i ? ns[i] + ", " + ns[j] : String(ns[i])));
			i = j;
		}
		return out.join(", ");
	}
	function evidenceOf(f) {
		var box = el("div", {cls: "evidence"});
		if (f.detail) box.appendChild(el.apply(null, ["ul", {cls: "detail"}].concat(
			f.detail.split("; ").map(function (t) { return el("li", {text: prose(t)}); }))));
		if (f.fix) box.appendChild(el("div", {cls: "fix"}, el("b", {text: "Fix: "}), prose(f.fix)));
		if (f.evidence && Object.keys(f.evidence).length) box.appendChild(value(f.evidence));
		if (f.trace) box.appendChild(el("div", {cls: "muted mono", text: "trace: " + f.trace}));
		return box;
	}
	function findingBlock(g) {
		var f = g.f;
		var d = el("details", {cls: "finding " + f.severity, id: g.id, "data-code": f.code,
				       "data-severity": f.severity, "data-pid": f.pid || "",
				       "data-count": String(g.all.length),
				       "data-pids": g.all.map(function (x) { return x.pid || ""; }).join(" ")});
		var w = groupWho(g);
		d.appendChild(el("summary", null, el("span", {cls: "sev sev-" + f.severity, text: f.severity}), " ",
				 el("span", {cls: "code", text: f.code}), " ",
				 w ? el("span", {cls: "who", text: w + ": "}) : null,
				 el("span", {cls: "msg", text: prose(f.message || "")})));
		d.appendChild(evidenceOf(f));
		/* The same thing said of other processes: each one's evidence. */
		g.all.slice(1).forEach(function (o) {
			d.appendChild(el("details", {cls: "also"}, el("summary", {text: "the evidence of " + who(o)}), evidenceOf(o)));
		});
		return d;
	}
	var sv = section("verdict", "Verdict");
	var counts = {error: 0, warning: 0, info: 0};
	findings.forEach(function (f) { counts[f.severity] = (counts[f.severity] || 0) + 1; });
	sv.firstChild.appendChild(el("span", {id: "verdict-line"},
		plural(procs.length, "process", "processes") + " checked: ",
		el("span", {cls: counts.error ? "sev-error" : "ok", text: plural(counts.error, "error")}), ", ",
		el("span", {cls: counts.warning ? "sev-warning" : "", text: plural(counts.warning, "warning")}), ", ",
		plural(counts.info, "note")));
	if (!findings.length)
		sv.appendChild(el("p", {cls: "ok", text: "Nothing wrong was found."}));
	var bySev = {};
	SEVS.forEach(function (s) { bySev[s] = groups.filter(function (g) { return g.f.severity === s; }); });
	function headlines(s) {
		if (!bySev[s].length) return;
		var box = el("div", {cls: "group", "data-severity": s});
		bySev[s].forEach(function (g) { box.appendChild(findingBlock(g)); });
		sv.appendChild(box);
	}
	headlines("error");
	/* The picture of what went wrong, under the errors it shows. */
	var pictures = el("div", {id: "pictures"});
	sv.appendChild(pictures);
	headlines("warning");
	if (bySev.info.length) {
		var codes = {};
		bySev.info.forEach(function (g) { codes[g.f.code] = (codes[g.f.code] || 0) + g.all.length; });
		var notes = el("details", {id: "notes", cls: "group", "data-severity": "info"},
			el("summary", null, el("span", {cls: "sev-info", text: plural(counts.info, "note")}),
				el("span", {cls: "muted", text: ": " + Object.keys(codes).map(function (c) {
					return c + (codes[c] > 1 ? " \u00d7" + codes[c] : ""); }).join(", ")})));
		bySev.info.forEach(function (g) { notes.appendChild(findingBlock(g)); });
		sv.appendChild(notes);
	}

	/* ---- the picture of a hang: who waits for whom ----
	 * Processes, not threads: one box per process, one arrow per pair
	 * that waits for another (a straggler's helper threads that talk
	 * back to the waiting ranks draw nothing).  Boxes stand in columns
	 * by their distance from the one the others wait for, which stands
	 * rightmost, so that every arrow runs from a box's right edge to the
	 * next column's left edge, over no text. */
	var NS = "http://www.w3.org/2000/svg";
	function svgEl(tag, attrs, text) {
		var e = document.createElementNS(NS, tag);
		for (var k in attrs || {}) e.setAttribute(k, String(attrs[k]));
		if (has(text)) e.textContent = text;
		return e;
	}
	function hangPicture(g) {
		var f = g.f, ev = f.evidence || {};
		var st = ev.straggler && typeof ev.straggler === "object" ? ev.straggler : null;
		var chain = Array.isArray(ev.chain) ? ev.chain : [];
		var nodes = {}, order = [], edges = [], seenEdge = {};
		function node(key, o) {
			if (!(key in nodes)) { nodes[key] = {key: key, out: []}; order.push(key); }
			var n = nodes[key];
			for (var k in o) if (has(o[k]) && o[k] !== "" && !has(n[k])) n[k] = o[k];
			return n;
		}
		function edge(a, b, why) {
			if (a === b) return;
			var k = a + ">" + b;
			if (seenEdge[k]) { seenEdge[k].why.push(why); return; }
			seenEdge[k] = {a: a, b: b, why: [why]};
			edges.push(seenEdge[k]);
		}
		/* A box's lines: where it is (its Python line, else its
		 * function) and what it does there ("sleeping \u00b7
		 * clock_nanosleep for 21.2 s"). */
		function fromState(s) {
			var wait = s.wait ? String(s.wait).replace(/ \(.*$/, "") : "";
			/* "waiting elsewhere" says less than a wait in words. */
			var kind = s.state === "waiting elsewhere" && /^[a-z][a-z ]*$/.test(wait) ? wait : s.state;
			return {pid: s.pid, rank: s.rank, host: s.host, exe: s.exe,
				at: s.python_at || s.in || (s.where ? prose(s.where) : null),
				doing: [kind, s.syscall ? s.syscall + (has(s.blocked_ns) ? " for " + dur(s.blocked_ns) : "") : null]
					.filter(Boolean).join(" \u00b7 ")};
		}
		var sink = null;
		if (chain.length && has(chain[0].pid) && !has(chain[0].from_pid)) {
			/* A run without ranks: a chain of processes, the last one
			 * holds the others. */
			chain.forEach(function (c, i) {
				node("p" + c.pid, fromState(c));
				if (i) edge("p" + chain[i - 1].pid, "p" + c.pid, c.waits_for_next || chain[i - 1].waits_for_next || "");
			});
			sink = "p" + chain[chain.length - 1].pid;
		} else if (st || has(ev.missing_rank) || (Array.isArray(ev.waiting) && ev.waiting.length)) {
			if (st) sink = node("p" + st.pid, fromState(st)).key;
			else if (has(ev.missing_rank) && ev.missing_rank >= 0)
				sink = node("r" + ev.missing_rank, {rank: ev.missing_rank, missing: true,
					at: "never started or never joined", doing: ""}).key;
			(ev.waiting || []).forEach(function (w) { node("p" + w.pid, fromState(w)); });
			chain.forEach(function (l) {
				if (!has(l.from_pid) || !has(l.to_pid)) return;
				/* A straggler's own threads wait for the others too
				 * (a transport's receive loop): not what holds the job. */
				if (sink && "p" + l.from_pid === sink) return;
				node("p" + l.from_pid, {pid: l.from_pid, rank: l.from_rank});
				node("p" + l.to_pid, {pid: l.to_pid, rank: l.to_rank});
				edge("p" + l.from_pid, "p" + l.to_pid, "thread " + l.tid + " in " + l.syscall + (l.address ? " on " + l.address : ""));
			});
		} else {
			return null;
		}
		var cu = ev.culprit && typeof ev.culprit === "object" ? ev.culprit : null;
		if (sink && cu && has(cu.pid) && "p" + cu.pid !== sink) {
			/* The straggler's worker (a DataLoader's) is where it is stuck. */
			var row = rows.filter(function (r) { return r.pid === cu.pid; })[0] || {};
			var blocked = /^blocked in (\S+) for (\S+ \S+)/.exec(row.waiting_in || "");
			var ck = node("p" + cu.pid, {pid: cu.pid, rank: has(cu.worker_of) ? null : cu.rank,
				at: cu.python_at || pyShort((row.python_stack || [])[0]),
				doing: blocked ? blocked[1] + " for " + blocked[2] : cu.cause, worker_of: cu.worker_of}).key;
			edge(sink, ck, cu.cause || "");
			nodes[ck].culprit = true;
		}
		if (sink) {
			nodes[sink].straggler = true;
			/* Every waiting rank waits for the straggler, linked or not. */
			order.forEach(function (k) {
				var n = nodes[k];
				if (k !== sink && !n.culprit && !edges.some(function (e) { return e.a === k; }))
					edge(k, sink, n.doing || "waits");
			});
		}
		/* Columns: the longest way to a node nothing is waited for from. */
		var depth = {};
		order.forEach(function (k) { depth[k] = 0; });
		for (var pass = 0; pass < order.length; pass++) {
			var moved = false;
			edges.forEach(function (e) {
				if (depth[e.a] < depth[e.b] + 1 && depth[e.b] + 1 < order.length) { depth[e.a] = depth[e.b] + 1; moved = true; }
			});
			if (!moved) break;
		}
		/* What would point right to left (a cycle) is left out. */
		edges = edges.filter(function (e) { return depth[e.a] > depth[e.b]; });
		var maxd = 0;
		order.forEach(function (k) { maxd = Math.max(maxd, depth[k]); });
		var cols = [];
		for (var c = 0; c <= maxd; c++) cols.push([]);
		order.forEach(function (k) { cols[maxd - depth[k]].push(k); });
		/* Many ranks in a column are one box ("126 ranks wait"). */
		var MAXBOX = 5;
		cols = cols.map(function (col) {
			var plain = col.filter(function (k) { return !nodes[k].straggler && !nodes[k].culprit; });
			if (plain.length <= MAXBOX) return col;
			var ranks = plain.map(function (k) { return nodes[k].rank; }).filter(function (r) { return has(r) && r >= 0; });
			var ats = {};
			plain.forEach(function (k) { ats[nodes[k].at || "?"] = 1; });
			var atl = Object.keys(ats);
			var agg = node("g" + cols.indexOf(col), {aggregate: plain.length,
				title: plural(plain.length, ranks.length === plain.length ? "rank" : "process",
					ranks.length === plain.length ? "ranks" : "processes") + " wait",
				at: atl.length === 1 ? atl[0] : "at " + atl.length + " different places",
				doing: ranks.length ? "ranks " + ranges(ranks) : ""});
			depth[agg.key] = depth[plain[0]];
			var merged = [];
			edges.forEach(function (e) {
				var a = plain.indexOf(e.a) >= 0 ? agg.key : e.a, b = plain.indexOf(e.b) >= 0 ? agg.key : e.b;
				var same = merged.filter(function (x) { return x.a === a && x.b === b; })[0];
				if (same) same.why = same.why.concat(e.why);
				else if (a !== b) merged.push({a: a, b: b, why: e.why.slice()});
			});
			edges = merged;
			return col.filter(function (k) { return plain.indexOf(k) < 0; }).concat([agg.key]);
		});
		var AVAIL = Math.max(640, Math.min(1180, (document.documentElement.clientWidth || 1280) - 80));
		var GAP = 90, H = 58, VGAP = 28, TAG = 18;
		var W = Math.max(170, Math.min(380, Math.floor((AVAIL - (cols.length - 1) * GAP) / cols.length)));
		var nrows = 0;
		cols.forEach(function (col) { nrows = Math.max(nrows, col.length); });
		var HT = TAG + nrows * H + (nrows - 1) * VGAP + 4;
		var pos = {};
		cols.forEach(function (col, ci) {
			var h = col.length * H + (col.length - 1) * VGAP, y0 = TAG + Math.floor((HT - TAG - h) / 2);
			col.forEach(function (k, ri) { pos[k] = {x: ci * (W + GAP) + 1, y: y0 + ri * (H + VGAP)}; });
		});
		var width = cols.length * W + (cols.length - 1) * GAP + 2;
		var svg = svgEl("svg", {"class": "ranks", id: g.id + "-picture", width: width, height: HT,
			viewBox: "0 0 " + width + " " + HT, "data-edges": edges.length, "data-code": f.code,
			role: "img", "aria-label": "who waits for whom"});
		var defs = svgEl("defs");
		var mk = svgEl("marker", {id: g.id + "-arrow", markerWidth: 9, markerHeight: 9, refX: 9, refY: 4.5, orient: "auto",
			markerUnits: "userSpaceOnUse"});
		mk.appendChild(svgEl("path", {d: "M0,0 L9,4.5 L0,9 z", "class": "arrowhead"}));
		defs.appendChild(mk);
		svg.appendChild(defs);
		var CH = 7.3; /* px per character of the boxes' 12px font */
		function fit(s, w) {
			s = String(s || "");
			var n = Math.floor((w - 16) / CH);
			return s.length > n ? s.slice(0, Math.max(1, n - 1)) + "\u2026" : s;
		}
		order.forEach(function (k) {
			if (!pos[k]) return;
			var n = nodes[k], p = pos[k];
			var gg = svgEl("g", {"class": "node" + (n.straggler ? " straggler" : "") + (n.culprit ? " culprit" : "") +
				(n.missing ? " missing" : "") + (n.aggregate ? " aggregate" : ""),
				"data-pid": has(n.pid) ? n.pid : "", "data-rank": has(n.rank) ? n.rank : ""});
			if (n.straggler) gg.setAttribute("data-straggler", "1");
			gg.appendChild(svgEl("rect", {x: p.x, y: p.y, width: W, height: H, rx: 4}));
			var title = n.title || [has(n.rank) && n.rank >= 0 ? "rank " + n.rank : null,
				has(n.pid) ? "pid " + n.pid : null,
				!has(n.rank) && n.exe ? base(n.exe) : null,
				has(n.worker_of) ? "worker of rank " + n.worker_of : null].filter(Boolean).join(" \u00b7 ");
			if (n.missing) title += " \u00b7 missing";
			var lines = [[title, "t"], [n.at || "", "at"], [n.doing || "", "doing"]];
			lines.forEach(function (l, i) {
				if (!l[0]) return;
				gg.appendChild(svgEl("text", {x: p.x + 8, y: p.y + 17 + i * 17, "class": l[1]}, fit(l[0], W)));
			});
			var tip = [title, n.at, n.doing].filter(Boolean).join("\n");
			gg.appendChild(svgEl("title", null, tip));
			if (n.straggler || n.culprit)
				gg.appendChild(svgEl("text", {x: p.x, y: p.y - 5, "class": "tag"},
					n.straggler ? (n.missing ? "missing: the others wait for it" : "holds the job up") : "where it is stuck"));
			svg.appendChild(gg);
		});
		edges.forEach(function (e) {
			var a = pos[e.a], b = pos[e.b];
			if (!a || !b) return;
			var x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x - 1, y2 = b.y + H / 2, dx = (x2 - x1) / 2;
			var path = svgEl("path", {d: "M" + x1 + "," + y1 + " C" + (x1 + dx) + "," + y1 + " " + (x2 - dx) + "," + y2 + " " + x2 + "," + y2,
				"class": "link", fill: "none", "marker-end": "url(#" + g.id + "-arrow)",
				"data-from": nodes[e.a].pid || e.a, "data-to": nodes[e.b].pid || e.b});
			path.appendChild(svgEl("title", null, e.why.filter(Boolean).join("\n") || "waits for"));
			svg.appendChild(path);
		});
		var names = function (k) {
			var n = nodes[k];
			return n.aggregate ? n.doing || n.title : has(n.rank) && n.rank >= 0 ? "rank " + n.rank : "pid " + n.pid;
		};
		var says = edges.map(function (e) { return names(e.a) + (nodes[e.a].aggregate ? " wait for " : " waits for ") + names(e.b); });
		return el("figure", {cls: "picture hang", "data-code": f.code},
			el("div", {cls: "scroll"}, svg),
			el("figcaption", null, el("a", {href: "#" + g.id, "data-goto": g.id, text: f.code}),
				": " + (says.length ? says.join("; ") : "no process waits for another") +
				" (arrows: waits for; hover a box or an arrow for more)"));
	}

	/* ---- the picture of deaths: the tree down to the dead ---- */
	function deathPicture(dead) {
		var onPath = {};
		dead.forEach(function (i) { for (var k = i; k >= 0 && !onPath[k]; k = parent[k]) onPath[k] = true; });
		var deadOf = {};
		dead.forEach(function (i) { deadOf[i] = (deaths[procs[i].trace] || []).filter(function (f) { return f.severity !== "info"; })[0]; });
		function item(i) {
			var p = procs[i], f = deadOf[i];
			var li = el("li", {"data-pid": String(p.pid)});
			var ev = (f && f.evidence) || {};
			/* A DataLoader's worker is a python3 like its parent: its
			 * stack says which it is. */
			var worker = (ev.python_stack || []).some(function (x) { return /torch\/utils\/data\/_utils\/worker\.py/.test(x); });
			li.appendChild(el("span", {cls: "name", text: procName(p) + (worker ? " \u00b7 DataLoader worker" : "")}));
			if (f) {
				li.className = "dead";
				li.setAttribute("data-dead", f.code);
				li.appendChild(el("span", {cls: "sev-" + f.severity, text: " \u2716 "}));
				var gi = gindex[[f.severity, f.code, f.message].join("\u0000")];
				li.appendChild(el("a", {href: "#" + groups[gi].id, "data-goto": groups[gi].id, cls: "sev-" + f.severity, text: f.code}));
				/* Where it died: the innermost frame, in prose, and its
				 * Python line. */
				var fr = Array.isArray(ev.frames) && ev.frames.length ? frame(ev.frames[0]) : "";
				fr = /\(no symbol\)$/.test(fr) ? "" : fr.replace(/\+0x[0-9a-fA-F]+/, "");
				var py = ev.culprit && ev.culprit.python_at;
				if (fr || py)
					li.appendChild(el("span", {cls: "where", text: (fr ? " in " + fr : "") + (py ? " at " + py : "")}));
				li.appendChild(el("span", {cls: "muted", text: ": " + prose(p.ended || f.message)}));
			} else {
				li.appendChild(el("span", {cls: "muted", text: ": " + (p.ended || "?")}));
			}
			var ks = kids[i].filter(function (c) { return onPath[c]; });
			var others = kids[i].filter(function (c) { return !onPath[c]; });
			if (ks.length || others.length) {
				var ul = el("ul");
				ks.forEach(function (c) { ul.appendChild(item(c)); });
				if (others.length) {
					var sig = others.filter(function (c) { return (deaths[procs[c].trace] || []).length; }).length;
					ul.appendChild(el("li", {cls: "muted others"}, plural(others.length, "other child", "other children") +
						(sig ? " (" + sig + " ended by a signal)" : "") + " \u00b7 ",
						el("a", {href: "#job", "data-section": "job", text: "all processes"})));
				}
				li.appendChild(ul);
			}
			return li;
		}
		var ul = el("ul", {id: "death-tree", cls: "tree deaths"});
		roots.forEach(function (r) { if (onPath[r]) ul.appendChild(item(r)); });
		return el("figure", {cls: "picture deaths"}, ul,
			el("figcaption", {text: plural(dead.length, "process", "processes") + " died: the tree from the first process down to " +
				(dead.length === 1 ? "it" : "them") + ", other children counted"}));
	}
	var pics = 0;
	groups.forEach(function (g) {
		if (g.f.severity === "info" || pics >= 3) return;
		var fig = hangPicture(g);
		if (fig) { pictures.appendChild(fig); pics++; }
	});
	var dead = [];
	procs.forEach(function (p, i) {
		if ((deaths[p.trace] || []).some(function (f) { return f.severity !== "info"; })) dead.push(i);
	});
	if (dead.length) pictures.appendChild(deathPicture(dead));

	/* ---- what changed since run A (report --diff A B) ---- */
	function side(x) {
		if (!x) return "(absent)";
		return [x.value, x.path ? "at " + x.path : null,
			x.found_via ? "(" + x.found_via + (x.found_via_value ? " " + x.found_via_value : "") + ")" : null,
			x.installed_by ? "installed by " + x.installed_by : null].filter(Boolean).join(" ");
	}
	/* A side whose ranks loaded different files: each file with who. */
	function sideCell(x, units) {
		if (!Array.isArray(units) || units.length < 2) return el("td", {cls: "path", text: side(x)});
		var td = el("td", {cls: "path"});
		units.forEach(function (u) {
			td.appendChild(el("div", null, side(u.value === null ? null : u),
				el("span", {cls: "muted", text: " \u2014 " + (u.units || []).join(", ")})));
		});
		return td;
	}
	if (D.diff) {
		var sd = section("changes", "What changed");
		var dA = D.diff.a || {}, dB = D.diff.b || {};
		sd.appendChild(el("p", null, "A: ", el("code", {text: dA.input || "?"}),
			" (" + plural(dA.processes || 0, "process", "processes") + ") \u00b7 B, shown on this page: ",
			el("code", {text: dB.input || "?"}), " (" + plural(dB.processes || 0, "process", "processes") + ")"));
		var envc = D.diff.environment || [];
		if (envc.length) {
			var et = el("table", {id: "diff-env"}, el("tr", null, el("th", {text: "what"}), el("th", {text: "name"}),
				el("th", {text: "change"}), el("th", {text: "A"}), el("th", {text: "B"})));
			envc.forEach(function (c) {
				et.appendChild(el("tr", {"data-key": c.key}, el("td", {text: c.section}),
					el("td", {cls: "mono", text: c.key}), el("td", {text: c.what_changed || ""}),
					sideCell(c.a, c.a_units), sideCell(c.b, c.b_units)));
			});
			sd.appendChild(el("h3", {text: "Libraries and environment, most consequential first"}));
			sd.appendChild(et);
		} else {
			sd.appendChild(el("p", {cls: "ok", text: "Same libraries and environment."}));
		}
		var ch = D.diff.changes || [], un = D.diff.unchanged || [];
		var oa = D.diff.only_a || [], ob = D.diff.only_b || [];
		if (!ch.length && !un.length && !oa.length && !ob.length) {
			/* Said once, not as four empty lists. */
			sd.appendChild(el("p", {cls: "muted", id: "diff-no-cudnn", text: "No cuDNN convolution in either run."}));
		} else {
			sd.appendChild(el("h3", {text: "cuDNN choices: " + plural(ch.length, "problem") + " changed, " +
				plural(un.length, "problem") + " the same"}));
		}
		var mtime = function (c, v) {
			if (!has(v)) return "-";
			return c.time_metric === "selection_time_ms" ? dur(v * 1e6) + " to select" : dur(v * 1e3);
		};
		if (ch.length) {
			var ctb = el("table", {id: "diff-conv"});
			ctb.appendChild(el("tr", null, el("th", {text: "problem"}), el("th", {text: "change"}),
				el("th", {text: "time A"}), el("th", {text: "time B"})));
			ch.forEach(function (c) {
				ctb.appendChild(el("tr", null, el("td", {cls: "path", text: c.problem || (c.shape && c.shape.text) || ""}),
					el("td", {text: c.what_changed || ""}),
					el("td", {text: mtime(c, c.time_a)}), el("td", {text: mtime(c, c.time_b)})));
			});
			sd.appendChild(ctb);
		}
		[[oa, "A"], [ob, "B"]].forEach(function (o) {
			if (o[0].length)
				sd.appendChild(el("p", {text: plural(o[0].length, "problem") + " only in " + o[1]}));
		});
	}

	/* ---- timeline (timeline.js): what each process did, right under
	 * the verdict, where it shows the straggler's sleep against the
	 * others' wait ---- */
	dltTimeline(section("timeline", "Timeline"), D.timeline || {traceEvents: []}, {el: el, dur: dur, num: num, plural: plural, P: P});

	/* ---- hangs ---- */
	var sh = section("hangs", "Hangs");
	var HANG = /HANG|RANK|STALL|STRAGGLER|COLLECTIVE|WAIT/;
	var hg = groups.filter(function (g) { return HANG.test(g.f.code); });
	var waiting = rows.filter(function (r) { return r.in_flight || r.waiting_in; });
	if (!hg.length && !waiting.length) {
		sh.appendChild(el("p", {cls: "ok", id: "no-hang",
			text: "No hang: every traced call returned and no thread waited past the stall threshold."}));
	} else {
		/* The findings are in the verdict, shown once: linked from here. */
		if (hg.length) {
			var refs = el("ul", {cls: "refs"});
			hg.forEach(function (g) {
				refs.appendChild(el("li", null, el("a", {href: "#" + g.id, "data-goto": g.id, "data-ref": g.f.code,
					cls: "sev-" + g.f.severity, text: g.f.severity + " " + g.f.code}),
					" " + (groupWho(g) ? groupWho(g) + ": " : ""), prose(g.f.message)));
			});
			sh.appendChild(el("p", {cls: "muted", text: "In the verdict, with their evidence:"}));
			sh.appendChild(refs);
		}
		var cols = [];
		rows.forEach(function (r) {
			Object.keys(r).forEach(function (k) {
				if (k !== "trace" && cols.indexOf(k) < 0 && rows.some(function (x) { return shown(x[k]); })) cols.push(k);
			});
		});
		var t = el("table", {id: "hang-table"});
		var head = el("tr");
		cols.forEach(function (c) { head.appendChild(el("th", {text: label(c)})); });
		t.appendChild(head);
		rows.forEach(function (r) {
			var tr = el("tr", {"data-pid": String(r.pid)});
			cols.forEach(function (c) {
				var v = r[c], cell;
				if (!shown(v)) cell = el("span", {cls: "muted", text: "-"});
				else if (c === "python_stack" && Array.isArray(v))
					/* The innermost line, the rest on demand. */
					cell = el("details", null, el("summary", {text: pyShort(v[0])}), el("pre", {text: v.join("\n")}));
				else cell = value(v, c, r);
				tr.appendChild(el("td", null, cell));
			});
			t.appendChild(tr);
		});
		sh.appendChild(el("div", {cls: "scroll"}, t));
	}

	/* ---- processes ---- */
	var sj = section("job", "Processes");
	var hosts = {}, ranks = {};
	procs.forEach(function (p) {
		hosts[p.host] = 1;
		if (has(p.rank)) ranks[p.rank] = 1;
	});
	var fFailed = el("input", {type: "checkbox", id: "f-failed"});
	fFailed.checked = P.failed === "1";
	function select(id, lbl, keys) {
		var s = el("select", {id: id}, el("option", {value: "", text: "all " + lbl}));
		keys.sort(function (a, b) { return a - b || (a < b ? -1 : a > b); }).forEach(function (k) {
			s.appendChild(el("option", {value: String(k), text: lbl.replace(/s$/, "") + " " + k}));
		});
		return s;
	}
	var fRank = select("f-rank", "ranks", Object.keys(ranks).map(Number));
	var fHost = select("f-host", "hosts", Object.keys(hosts));
	if (P.rank) fRank.value = P.rank;
	if (P.host) fHost.value = P.host;
	sj.appendChild(el("div", {cls: "controls"}, el("label", null, fFailed, " failed only"), fRank, fHost,
		el("span", {cls: "muted", id: "tree-count"})));
	var tree = el("div", {cls: "tree", id: "tree"});
	sj.appendChild(tree);
	function drawTree() {
		tree.textContent = "";
		var want = procs.map(function (p) {
			return (!fFailed.checked || failed(p)) &&
				(fRank.value === "" || String(p.rank) === fRank.value) &&
				(fHost.value === "" || p.host === fHost.value);
		});
		/* A wanted process shows with its ancestors, for context. */
		var show = want.slice();
		function up(i) {
			var ok = show[i];
			kids[i].forEach(function (c) { if (up(c)) ok = true; });
			return (show[i] = ok);
		}
		roots.forEach(up);
		var nshown = 0;
		function node(i) {
			var p = procs[i];
			nshown++;
			var lbl = [el("span", {cls: failed(p) ? "failed" : "", text:
				"pid " + p.pid + (has(p.rank) ? " rank " + p.rank : "") +
				" " + base(p.exe) + " on " + p.host + ": " + (p.ended || "?")})];
			/* How it died, in the words of the finding that says so. */
			var death = (deaths[p.trace] || [])[0];
			if (death)
				lbl.push(el("span", {cls: "sev-" + death.severity, "data-death": death.code,
					text: " \u2014 " + death.code + ": " + prose(death.message).slice(0, 160)}));
			if (p.peak_rss_kb)
				lbl.push(el("span", {cls: "muted", text: " \u00b7 peak RSS " + bytes(p.peak_rss_kb * 1024)}));
			if (p.findings && (p.findings.error || p.findings.warning))
				lbl.push(el("span", {cls: "muted", text: " (" + plural(p.findings.error, "error") + ", " +
					plural(p.findings.warning, "warning") + ")"}));
			var li = el("li", {"data-pid": String(p.pid), "data-wanted": want[i] ? "1" : "0"});
			var ks = kids[i].filter(function (c) { return show[c]; });
			if (ks.length) {
				var sm = el("summary");
				lbl.forEach(function (x) { sm.appendChild(x); });
				sm.appendChild(el("span", {cls: "muted", text: " \u00b7 " + plural(ks.length, "child", "children")}));
				var d = el("details", null, sm);
				/* A shell that ran 1,000 commands stays one line
				 * until asked; a filter opens what it found. */
				var filtered = fFailed.checked || fRank.value || fHost.value;
				d.open = ks.length <= 32 || !!filtered;
				var ul = el("ul");
				ks.forEach(function (c) { ul.appendChild(node(c)); });
				d.appendChild(ul);
				li.appendChild(d);
			} else {
				lbl.forEach(function (x) { li.appendChild(x); });
			}
			return li;
		}
		var ul = el("ul");
		roots.forEach(function (r) { if (show[r]) ul.appendChild(node(r)); });
		tree.appendChild(ul);
		document.getElementById("tree-count").textContent =
			"showing " + num(nshown) + " of " + plural(procs.length, "process", "processes");
	}
	[fFailed, fRank, fHost].forEach(function (c) { c.addEventListener("change", drawTree); });
	drawTree();

	/* ---- GPU calls: the whole run's per API, as summary says them ---- */
	var sg = section("gpu", "GPU calls");
	var gp = procs.filter(function (p) {
		return (p.gpu_calls || []).length || p.lost_calls || p.lost_records;
	});
	if (!gp.length)
		sg.appendChild(el("p", {cls: "muted", text: "No traced GPU library call."}));
	gp.forEach(function (p) {
		sg.appendChild(el("p", null, el("strong", {text: who(p) + " " + base(p.exe) + (p.host ? " on " + p.host : "")})));
		var calls = p.gpu_calls || [];
		if (calls.length) {
			var t = el("table", {cls: "gpu-calls", "data-pid": String(p.pid)}, el("tr", null,
				el("th", {text: "API"}), el("th", {text: "calls"}), el("th", {text: "errors"}),
				el("th", {text: "median"}), el("th", {text: "max"})));
			calls.forEach(function (c) {
				var timed = has(c.median_ns);
				t.appendChild(el("tr", null, el("td", {cls: "mono", text: c.api}),
					el("td", {text: num(c.calls)}), el("td", {text: num(c.errors)}),
					el("td", {text: timed ? dur(c.median_ns) : "-"}),
					el("td", {text: timed ? dur(c.max_ns) : "-"})));
			});
			sg.appendChild(t);
		}
		if (has(p.individual_from_offset_ns))
			sg.appendChild(el("p", {cls: "muted individual-from", text: "individual calls from +" +
				dur(Math.max(0, p.individual_from_offset_ns)) + " (earlier ones as per-second aggregates)"}));
		if (p.lost_calls || p.lost_records)
			sg.appendChild(el("p", {cls: "sev-warning", text: "not recorded: " +
				[p.lost_calls ? num(p.lost_calls) + (p.lost_calls === 1 ? " call" : " calls") + " (the ring had no free chunk)" : "",
				 p.lost_records ? num(p.lost_records) + (p.lost_records === 1 ? " other record" : " other records") + " (the size limit was reached)" : ""]
				.filter(Boolean).join(", ")}));
	});

	/* ---- libraries: grouped by package or directory, folded ----
	 * A torch job loads some 300 libraries: the page says how many and
	 * from where, and draws a group's rows when it is opened or the
	 * filter has text (#libs=TEXT presets it). */
	var sl = section("libs", "Libraries");
	var libs = {};
	var LIBS = (D.libs && D.libs.libraries) || [];
	((D.libs && D.libs.processes) || []).forEach(function (p) {
		(p.libraries || []).forEach(function (li) {
			var l = LIBS[li];
			if (!l) return;
			var k = [l.path, l.found_via, l.version, l.failed].join("\u0000");
			var e = libs[k] || (libs[k] = {l: l, pids: [], requesters: {}});
			e.pids.push(p.pid);
			e.requesters[l.requester ? base(l.requester) : "-"] = 1;
		});
	});
	var libList = Object.keys(libs).map(function (k) { return libs[k]; });
	libList.sort(function (a, b) { return (b.l.failed - a.l.failed) || (a.l.path < b.l.path ? -1 : 1); });
	var lgroups = [], lgi = {};
	libList.forEach(function (e) {
		var l = e.l;
		var gk = l.failed ? "not loaded" : (l.package || l.installed_by || dir(l.path));
		if (!(gk in lgi)) { lgi[gk] = lgroups.length; lgroups.push({key: gk, rows: [], failed: 0}); }
		var g = lgroups[lgi[gk]];
		g.rows.push(e);
		if (l.failed) g.failed++;
	});
	lgroups.sort(function (a, b) { return (b.failed - a.failed) || (b.rows.length - a.rows.length) || (a.key < b.key ? -1 : 1); });
	var nfailed = libList.filter(function (e) { return e.l.failed; }).length;
	var fLib = el("input", {type: "search", id: "f-lib", placeholder: "search: name, path, rule, version"});
	fLib.value = P.libs || "";
	sl.appendChild(el("p", {id: "lib-summary", cls: nfailed ? "sev-warning" : ""},
		plural(libList.length, "library", "libraries") + " from " + plural(lgroups.length - (nfailed ? 1 : 0), "directory", "directories") +
		(nfailed ? ", " + num(nfailed) + " failed to load" : "") + " (one row per file, rule and version)"));
	sl.appendChild(el("div", {cls: "controls"}, fLib, el("span", {cls: "muted", id: "lib-count"})));
	var lbox = el("div", {id: "lib-groups"});
	sl.appendChild(lbox);
	function libText(e) {
		var l = e.l;
		return [l.requested, l.path, l.found_via, l.version, l.soname, l.error,
			Object.keys(e.requesters).join(" ")].join(" ").toLowerCase();
	}
	function libTable(list) {
		var lt = el("table", {cls: "lib-table"}, el("tr", null, el("th", {text: "requested"}), el("th", {text: "requested by"}),
			el("th", {text: "rule"}), el("th", {text: "path"}), el("th", {text: "version"}),
			el("th", {text: "processes"}), el("th", {text: "tried"})));
		list.forEach(function (e) {
			var l = e.l;
			var tried = null;
			if (l.tried && l.tried.length)
				tried = el("details", null, el("summary", {text: String(l.tried.length)}),
					el("pre", {text: l.tried.map(function (t) { return t.via + " " + t.path; }).join("\n")}));
			lt.appendChild(el("tr", {cls: l.failed ? "failed lib" : "lib", "data-path": l.path || ""},
				el("td", {cls: "path", text: l.requested || ""}),
				el("td", {text: Object.keys(e.requesters).join(", ")}),
				el("td", {text: l.found_via || ""}),
				el("td", {cls: "path", text: (l.failed ? "not loaded: " + (l.error || "") : l.path) || ""}),
				el("td", {text: l.version || ""}),
				el("td", {text: e.pids.length > 3 ? plural(e.pids.length, "process", "processes") : e.pids.join(", ")}),
				el("td", null, tried)));
		});
		return lt;
	}
	var LIMIT = 400;
	function drawLibs() {
		var q = fLib.value.toLowerCase();
		lbox.textContent = "";
		var total = 0, drawn = 0;
		lgroups.forEach(function (g) {
			var match = q ? g.rows.filter(function (e) { return libText(e).indexOf(q) >= 0 || g.key.toLowerCase().indexOf(q) >= 0; }) : g.rows;
			if (!match.length) return;
			total += match.length;
			var d = el("details", {cls: "lib-group", "data-group": g.key},
				el("summary", null, el("span", {cls: "path", text: g.key}),
					el("span", {cls: "muted", text: " \u00b7 " + plural(match.length, "library", "libraries") +
						(q ? " matching" : "")}),
					g.failed ? el("span", {cls: "sev-error", text: " \u00b7 " + g.failed + " failed"}) : null));
			/* Rows are drawn on opening: 300 rows nobody asked for
			 * would be most of the page. */
			var filled = false;
			function fill() {
				if (filled) return;
				filled = true;
				d.appendChild(libTable(match.slice(0, LIMIT)));
				if (match.length > LIMIT)
					d.appendChild(el("p", {cls: "muted", text: "first " + LIMIT + " of " + num(match.length) + "; the filter narrows them"}));
			}
			d.addEventListener("toggle", function () { if (d.open) fill(); });
			if (q && drawn < LIMIT) { fill(); d.open = true; drawn += match.length; }
			lbox.appendChild(d);
		});
		document.getElementById("lib-count").textContent = q ? plural(total, "library", "libraries") + " matching" :
			"open a group, or search";
	}
	fLib.addEventListener("input", drawLibs);
	drawLibs();

	/* ---- versions and environment (env --json): what differs first ---- */
	var se = section("env", "Environment");
	var ej = D.env || {};
	var items = ej.items || [];
	function envTable(list, id) {
		var etb = el("table", {id: id, cls: "env-table"}, el("tr", null, el("th", {text: "kind"}), el("th", {text: "name"}),
			el("th", {text: "value"}), el("th", {text: "where"})));
		list.forEach(function (it) {
			(it.values || []).forEach(function (v, i) {
				var units = it.same ? "all" : (v.units || []).join(", ");
				etb.appendChild(el("tr", {cls: it.same ? "" : "failed", "data-key": it.key},
					el("td", {text: i ? "" : it.kind}), el("td", {cls: "mono", text: i ? "" : it.key}),
					el("td", {cls: "path", text: side(v)}), el("td", {text: units})));
			});
			if ((it.absent || []).length)
				etb.appendChild(el("tr", {cls: "failed", "data-key": it.key}, el("td"), el("td"),
					el("td", {cls: "muted", text: "(not set or not loaded)"}), el("td", {text: it.absent.join(", ")})));
		});
		return etb;
	}
	if (!items.length) {
		se.appendChild(el("p", {cls: "muted", text: "No GPU library, runtime version or loading variable was recorded."}));
	} else {
		var differ = items.filter(function (it) { return !it.same; });
		var same = items.filter(function (it) { return it.same; });
		se.appendChild(el("p", {id: "env-line", cls: differ.length ? "sev-warning" : "ok",
			text: plural((ej.units || []).length, "unit") + " compared (ranks, or processes without one): " +
				(differ.length ? plural(differ.length, "item") + " differ" : "all agree") +
				(same.length ? ", " + plural(same.length, "item") + " the same everywhere" : "")}));
		/* The analyzer's one line on each library loaded from different
		 * files, where it says one. */
		var heads = differ.filter(function (it) { return it.headline; });
		if (heads.length)
			se.appendChild(el.apply(null, ["ul", {id: "env-headlines"}].concat(heads.map(function (it) {
				return el("li", {"data-key": it.key, text: it.headline}); }))));
		if (differ.length) se.appendChild(envTable(differ, "env-table"));
		if (same.length)
			se.appendChild(el("details", {id: "env-same"}, el("summary", {text: plural(same.length, "item") +
				" the same everywhere: " + same.slice(0, 6).map(function (it) { return it.key; }).join(", ") +
				(same.length > 6 ? ", \u2026" : "")}), envTable(same, differ.length ? "env-table-same" : "env-table")));
	}

	/* ---- cuDNN ---- */
	var sc = section("cudnn", "cuDNN convolutions");
	var conv = [];
	((D.algos && D.algos.processes) || []).forEach(function (p) {
		(p.problems || []).forEach(function (e) { conv.push({p: p, e: e}); });
	});
	if (!conv.length) {
		sc.appendChild(el("p", {cls: "muted", text: "No cuDNN convolution was traced."}));
	} else {
		var ct = el("table", {id: "cudnn-table"}, el("tr", null, el("th", {text: "process"}),
			el("th", {text: "cuDNN"}), el("th", {text: "direction"}), el("th", {text: "problem"}),
			el("th", {text: "choice"}), el("th", {text: "runs"}), el("th", {text: "mean"})));
		conv.forEach(function (x) {
			var ch = x.e.choice || {};
			var what = ch.api === "backend" ? "engine " + ch.engine + (ch.knobs ? " " + ch.knobs : "")
				: (ch.name || (ch.algo !== undefined ? "algo " + ch.algo : "-"));
			ct.appendChild(el("tr", null, el("td", {text: who(x.p)}), el("td", {text: x.p.cudnn || "?"}),
				el("td", {text: x.e.direction || ""}),
				el("td", {cls: "path", text: (x.e.shape && x.e.shape.text) || x.e.problem || ""}),
				el("td", {text: what}), el("td", {text: num(ch.count || 0)}),
				el("td", {text: has(ch.mean_us) ? dur(ch.mean_us * 1e3) : "-"})));
		});
		sc.appendChild(ct);
	}

	var target = P.section || (P.libs ? "libs" : P.failed || P.rank || P.host ? "job" : null);
	if (target && document.getElementById(target))
		document.getElementById(target).scrollIntoView();
	document.body.setAttribute("data-render-ms", String(Math.round(performance.now())));
	document.body.setAttribute("data-errors", String(errors));
	document.body.setAttribute("data-csp-violations", String(violations));
	document.body.setAttribute("data-rendered", "1");
})();
