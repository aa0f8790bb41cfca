/* dltrace report: draws the page from the JSON in #dlt-data.  Every text
 * from the traces goes into the page as a text node, never as markup:
 * paths and messages are whatever bytes the traced program had. */
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
	function plural(n, w, ws) { return n + " " + (n === 1 ? w : (ws || w + "s")); }
	function who(f) {
		var s = [];
		if (f.rank !== null && f.rank !== undefined) s.push("rank " + f.rank);
		if (f.pid) s.push("pid " + f.pid);
		return s.join(" ");
	}
	/* A value of the evidence: scalars as text, arrays as lists, objects
	 * as nested tables. */
	function value(v) {
		if (v === null || typeof v !== "object") return el("span", {cls: "mono", text: String(v)});
		if (Array.isArray(v)) {
			var out;
			if (v.every(function (x) { return x === null || typeof x !== "object"; })) {
				out = el("pre", {text: v.join("\n")});
			} else if (v.every(flat)) {
				/* Rows of one shape (tried paths, ranks): one table. */
				var keys = [];
				v.forEach(function (x) {
					Object.keys(x).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); });
				});
				out = el("table");
				var h = el("tr");
				keys.forEach(function (k) { h.appendChild(el("th", {text: k})); });
				out.appendChild(h);
				v.forEach(function (x) {
					var tr = el("tr");
					keys.forEach(function (k) {
						tr.appendChild(el("td", {cls: "mono", text: x[k] === undefined ? "" : String(x[k])}));
					});
					out.appendChild(tr);
				});
			} else {
				out = el("ol");
				v.forEach(function (x) { out.appendChild(el("li", null, value(x))); });
			}
			/* Long lists stay one click away. */
			return v.length > 6 ? el("details", null, el("summary", {text: v.length + " entries"}), out) : out;
		}
		var t = el("table");
		Object.keys(v).forEach(function (k) {
			t.appendChild(el("tr", null, el("th", {text: k}), el("td", null, value(v[k]))));
		});
		return t;
	}

	var procs = (D.check && D.check.processes) || [];
	var findings = (D.check && D.check.findings) || [];

	/* ---- header ---- */
	var m = D.meta || {};
	var redacted = m.redacted || 0;
	document.body.appendChild(el("header", null,
		el("h1", {text: m.title || "dltrace report"}),
		el("div", {cls: "meta"},
			"dltrace " + (m.version || "?") + " \u00b7 written " + (m.written_utc || "?") +
			" by: ", el("code", {id: "command", text: (m.command || []).join(" ")})),
		el("div", {cls: "meta", id: "privacy"},
			"Privacy: the traces hold only allow-listed environment variables (docs/privacy.md); " +
			(redacted ? plural(redacted, "value") + " shown as <redacted> (names that look secret)."
				  : "no value was redacted in this report."))));
	var nav = el("nav");
	[["verdict", "Verdict"]].concat(D.diff ? [["changes", "What changed"]] : []).concat([["job", "Processes"], ["gpu", "GPU calls"], ["hangs", "Hangs"], ["libs", "Libraries"],
	 ["env", "Environment"], ["cudnn", "cuDNN"], ["timeline", "Timeline"]]).forEach(function (s) {
		nav.appendChild(el("a", {href: "#" + s[0], text: s[1], "data-section": s[0]}));
	});
	nav.addEventListener("click", function (e) {
		/* The address's hash holds view presets; sections are scrolled to. */
		var s = e.target.getAttribute && e.target.getAttribute("data-section");
		if (s) { e.preventDefault(); document.getElementById(s).scrollIntoView(); }
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
	function findingBlock(f) {
		var d = el("details", {cls: "finding " + f.severity, "data-code": f.code,
				       "data-severity": f.severity, "data-pid": f.pid || ""});
		if (f.severity === "error") d.open = true;
		d.appendChild(el("summary", null, el("span", {cls: "sev-" + f.severity, text: f.severity + " " + f.code}),
				 " " + who(f) + ": ", f.message || ""));
		if (f.detail) d.appendChild(el.apply(null, ["ul", {cls: "detail"}].concat(
			f.detail.split("; ").map(function (t) { return el("li", {text: t}); }))));
		if (f.fix) d.appendChild(el("div", {cls: "fix"}, el("b", {text: "Fix: "}), f.fix));
		if (f.evidence && Object.keys(f.evidence).length) d.appendChild(value(f.evidence));
		if (f.trace) d.appendChild(el("div", {cls: "muted mono", text: f.trace}));
		return d;
	}
	var sv = section("verdict", "Verdict");
	var counts = {error: 0, warning: 0, info: 0};
	findings.forEach(function (f) { counts[f.severity] = (counts[f.severity] || 0) + 1; });
	sv.appendChild(el("p", {id: "verdict-line"},
		plural(procs.length, "process", "processes") + " checked: ",
		el("span", {cls: counts.error ? "sev-error" : "ok", text: plural(counts.error, "error")}), ", ",
		el("span", {cls: counts.warning ? "sev-warning" : "", text: plural(counts.warning, "warning")}), ", ",
		plural(counts.info, "note")));
	if (!findings.length)
		sv.appendChild(el("p", {cls: "ok", text: "Nothing wrong was found."}));
	SEVS.forEach(function (s) {
		var fs = findings.filter(function (f) { return f.severity === s; });
		if (!fs.length) return;
		var g = el("div", {cls: "group", "data-severity": s}, el("h3", {cls: "sev-" + s, text: plural(fs.length, s)}));
		fs.forEach(function (f) { g.appendChild(findingBlock(f)); });
		sv.appendChild(g);
	});

	/* ---- what changed since run A (report --diff A B) ---- */
	function side(x) {
		if (!x) return "(absent)";
		return [x.value, x.path ? "at " + x.path : null, x.found_via ? "(" + x.found_via + ")" : null,
			x.installed_by ? "installed by " + x.installed_by : null].filter(Boolean).join(" ");
	}
	if (D.diff) {
		var sd = section("changes", "What changed");
		var dA = D.diff.a || {}, dB = D.diff.b || {};
		sd.appendChild(el("p", null, "A: ", el("code", {text: dA.input || "?"}),
			" (" + plural(dA.processes || 0, "process", "processes") + ") · B, shown on this page: ",
			el("code", {text: dB.input || "?"}), " (" + plural(dB.processes || 0, "process", "processes") + ")"));
		var envc = D.diff.environment || [];
		if (envc.length) {
			var et = el("table", {id: "diff-env"}, el("tr", null, el("th", {text: "what"}), el("th", {text: "name"}),
				el("th", {text: "change"}), el("th", {text: "A"}), el("th", {text: "B"})));
			envc.forEach(function (c) {
				et.appendChild(el("tr", {"data-key": c.key}, el("td", {text: c.section}),
					el("td", {cls: "mono", text: c.key}), el("td", {text: c.what_changed || ""}),
					el("td", {cls: "path", text: side(c.a)}), el("td", {cls: "path", text: side(c.b)})));
			});
			sd.appendChild(el("h3", {text: "Libraries and environment, most consequential first"}));
			sd.appendChild(et);
		} else {
			sd.appendChild(el("p", {cls: "ok", text: "Same libraries and environment."}));
		}
		var ch = D.diff.changes || [];
		sd.appendChild(el("h3", {text: "cuDNN choices: " + plural(ch.length, "problem") + " changed, " +
			plural((D.diff.unchanged || []).length, "problem") + " the same"}));
		if (ch.length) {
			var ctb = el("table", {id: "diff-conv"});
			ctb.appendChild(el("tr", null, el("th", {text: "problem"}), el("th", {text: "change"}),
				el("th", {text: "time A"}), el("th", {text: "time B"})));
			ch.forEach(function (c) {
				ctb.appendChild(el("tr", null, el("td", {cls: "path", text: c.problem || (c.shape && c.shape.text) || ""}),
					el("td", {text: c.what_changed || ""}),
					el("td", {text: c.time_a !== undefined && c.time_a !== null ? String(c.time_a) : "-"}),
					el("td", {text: c.time_b !== undefined && c.time_b !== null ? String(c.time_b) : "-"})));
			});
			sd.appendChild(ctb);
		}
		["only_a", "only_b"].forEach(function (k) {
			var o = D.diff[k] || [];
			if (o.length)
				sd.appendChild(el("p", {text: plural(o.length, "problem") + " only in " + k.slice(-1).toUpperCase()}));
		});
	}

	/* ---- processes ---- */
	function failed(p) {
		return p.signal || (p.exit_code !== null && p.exit_code !== undefined && p.exit_code > 0) ||
			(p.findings && p.findings.error > 0);
	}
	var sj = section("job", "Processes");
	var hosts = {}, ranks = {};
	procs.forEach(function (p) {
		hosts[p.host] = 1;
		if (p.rank !== null && p.rank !== undefined) ranks[p.rank] = 1;
	});
	var DEATHS = /^(CRASH|OOM_KILL|SIGKILL|SIGNAL_SENT)$/;
	var deaths = {};
	findings.forEach(function (f) {
		if (DEATHS.test(f.code) && f.trace) (deaths[f.trace] = deaths[f.trace] || []).push(f);
	});
	var byKey = {};
	procs.forEach(function (p, i) { byKey[p.host + "/" + p.run + "/" + p.pid] = i; });
	var kids = procs.map(function () { return []; }), roots = [];
	procs.forEach(function (p, i) {
		var k = byKey[p.host + "/" + p.run + "/" + p.ppid];
		if (k !== undefined && k !== i) kids[k].push(i); else roots.push(i);
	});
	var fFailed = el("input", {type: "checkbox", id: "f-failed"});
	fFailed.checked = P.failed === "1";
	function select(id, label, keys) {
		var s = el("select", {id: id}, el("option", {value: "", text: "all " + label}));
		keys.sort(function (a, b) { return a - b || (a < b ? -1 : a > b); }).forEach(function (k) {
			s.appendChild(el("option", {value: String(k), text: label.replace(/s$/, "") + " " + k}));
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
		var shown = 0;
		function node(i) {
			var p = procs[i];
			shown++;
			var label = [el("span", {cls: failed(p) ? "failed" : "", text:
				"pid " + p.pid + (p.rank !== null && p.rank !== undefined ? " rank " + p.rank : "") +
				" " + base(p.exe) + " on " + p.host + ": " + (p.ended || "?")})];
			/* How it died, in the words of the finding that says so. */
			var death = (deaths[p.trace] || [])[0];
			if (death)
				label.push(el("span", {cls: "sev-" + death.severity, "data-death": death.code,
					text: " \u2014 " + death.code + ": " + death.message.slice(0, 160)}));
			if (p.peak_rss_kb)
				label.push(el("span", {cls: "muted", text: " \u00b7 peak RSS " +
					(p.peak_rss_kb / 1024).toFixed(1) + " MiB"}));
			if (p.findings && (p.findings.error || p.findings.warning))
				label.push(el("span", {cls: "muted", text: " (" + plural(p.findings.error, "error") + ", " +
					plural(p.findings.warning, "warning") + ")"}));
			var li = el("li", {"data-pid": String(p.pid), "data-wanted": want[i] ? "1" : "0"});
			var ks = kids[i].filter(function (c) { return show[c]; });
			if (ks.length) {
				var sm = el("summary");
				label.forEach(function (x) { sm.appendChild(x); });
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
				label.forEach(function (x) { li.appendChild(x); });
			}
			return li;
		}
		var ul = el("ul");
		roots.forEach(function (r) { if (show[r]) ul.appendChild(node(r)); });
		tree.appendChild(ul);
		document.getElementById("tree-count").textContent =
			"showing " + shown + " of " + plural(procs.length, "process", "processes");
	}
	[fFailed, fRank, fHost].forEach(function (c) { c.addEventListener("change", drawTree); });
	drawTree();

	/* ---- GPU calls: the whole run's per API, as summary says them ---- */
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
				var timed = c.median_ns !== null && c.median_ns !== undefined;
				t.appendChild(el("tr", null, el("td", {cls: "mono", text: c.api}),
					el("td", {text: num(c.calls)}), el("td", {text: num(c.errors)}),
					el("td", {text: timed ? dur(c.median_ns) : "-"}),
					el("td", {text: timed ? dur(c.max_ns) : "-"})));
			});
			sg.appendChild(t);
		}
		if (p.individual_from_offset_ns !== null && p.individual_from_offset_ns !== undefined)
			sg.appendChild(el("p", {cls: "muted individual-from", text: "individual calls from +" +
				dur(Math.max(0, p.individual_from_offset_ns)) + " (earlier ones as per-second aggregates)"}));
		if (p.lost_calls || p.lost_records)
			sg.appendChild(el("p", {cls: "sev-warning", text: "not recorded: " +
				[p.lost_calls ? num(p.lost_calls) + (p.lost_calls === 1 ? " call" : " calls") + " (the ring had no free chunk)" : "",
				 p.lost_records ? num(p.lost_records) + (p.lost_records === 1 ? " other record" : " other records") + " (the size limit was reached)" : ""]
				.filter(Boolean).join(", ")}));
	});

	/* ---- hangs ---- */
	var sh = section("hangs", "Hangs");
	var HANG = /HANG|RANK|STALL|STRAGGLER|COLLECTIVE|WAIT/;
	var hf = findings.filter(function (f) { return HANG.test(f.code); });
	var rows = D.hangs || [];
	var waiting = rows.filter(function (r) { return r.in_flight || r.waiting_in; });
	if (!hf.length && !waiting.length) {
		sh.appendChild(el("p", {cls: "ok", id: "no-hang",
			text: "No hang: every traced call returned and no thread waited past the stall threshold."}));
	} else {
		hf.forEach(function (f) {
			var b = findingBlock(f);
			var chain = f.evidence && (f.evidence.chain || f.evidence.wait_chain);
			if (Array.isArray(chain) && chain.length) {
				var st = f.evidence.straggler;
				b.appendChild(chain[0] && chain[0].from_pid !== undefined
					? linkGraph(chain, st && st.pid) : chainGraph(chain));
			}
			sh.appendChild(b);
		});
		var cols = Object.keys(rows[0] || {}).filter(function (k) { return k !== "trace"; });
		var t = el("table", {id: "hang-table"});
		var head = el("tr");
		cols.forEach(function (c) { head.appendChild(el("th", {text: c})); });
		t.appendChild(head);
		rows.forEach(function (r) {
			var tr = el("tr", {"data-pid": String(r.pid)});
			cols.forEach(function (c) {
				var v = r[c];
				tr.appendChild(el("td", null, v !== null && typeof v === "object" ? value(v)
					: el("span", {text: v === null || v === undefined ? "-" : String(v)})));
			});
			t.appendChild(tr);
		});
		sh.appendChild(t);
	}
	/* Who waits for whom, from links {from_pid, to_pid, syscall, ...}:
	 * one box per process in order of appearance, one arrow per link
	 * (above the boxes when it points left), the straggler outlined. */
	function linkGraph(links, straggler) {
		var NS = "http://www.w3.org/2000/svg", W = 150, H = 34, GAP = 60, TOP = 40;
		var order = [], label = {};
		links.forEach(function (l) {
			[["from", l.from_pid, l.from_rank], ["to", l.to_pid, l.to_rank]].forEach(function (e) {
				if (order.indexOf(e[1]) < 0) order.push(e[1]);
				label[e[1]] = (e[2] !== null && e[2] !== undefined && e[2] >= 0 ? "rank " + e[2] + " " : "") + "pid " + e[1];
			});
		});
		var svg = document.createElementNS(NS, "svg");
		svg.setAttribute("class", "chain");
		svg.setAttribute("data-links", String(links.length));
		svg.setAttribute("width", String(order.length * (W + GAP)));
		svg.setAttribute("height", String(TOP * 2 + H));
		var defs = document.createElementNS(NS, "defs");
		defs.innerHTML = '<marker id="arrow" markerWidth="8" markerHeight="8" refX="8" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z"></path></marker>';
		svg.appendChild(defs);
		function x(pid) { return order.indexOf(pid) * (W + GAP); }
		order.forEach(function (pid) {
			var r = document.createElementNS(NS, "rect");
			r.setAttribute("x", String(x(pid))); r.setAttribute("y", String(TOP));
			r.setAttribute("width", String(W)); r.setAttribute("height", String(H));
			if (pid === straggler) r.setAttribute("class", "straggler");
			svg.appendChild(r);
			var t = document.createElementNS(NS, "text");
			t.setAttribute("x", String(x(pid) + 6)); t.setAttribute("y", String(TOP + 22));
			t.textContent = label[pid] + (pid === straggler ? " (holds it up)" : "");
			svg.appendChild(t);
		});
		links.forEach(function (l, i) {
			var a = x(l.from_pid) + W / 2, b = x(l.to_pid) + W / 2, left = b < a;
			var y0 = left ? TOP : TOP + H, bend = (left ? -1 : 1) * (14 + 6 * (i % 3));
			var p = document.createElementNS(NS, "path");
			p.setAttribute("d", "M" + a + "," + y0 + " C" + a + "," + (y0 + bend) + " " + b + "," + (y0 + bend) + " " + b + "," + y0);
			p.setAttribute("fill", "none");
			p.setAttribute("class", "link");
			var tt = document.createElementNS(NS, "title");
			tt.textContent = "pid " + l.from_pid + " thread " + l.tid + " in " + l.syscall +
				(l.address ? " on " + l.address : "") + " \u2192 pid " + l.to_pid;
			p.appendChild(tt);
			svg.appendChild(p);
		});
		return svg;
	}
	/* Who waits for whom: one box per link of the chain, the last (the
	 * one the others wait for) outlined. */
	function chainGraph(chain) {
		var NS = "http://www.w3.org/2000/svg", W = 260, H = 40, GAP = 40;
		var svg = document.createElementNS(NS, "svg");
		svg.setAttribute("class", "chain");
		svg.setAttribute("width", String(chain.length * (W + GAP)));
		svg.setAttribute("height", String(H + 10));
		var defs = document.createElementNS(NS, "defs");
		var mk = document.createElementNS(NS, "marker");
		[["id", "arrow"], ["markerWidth", "8"], ["markerHeight", "8"], ["refX", "8"], ["refY", "4"],
		 ["orient", "auto"]].forEach(function (a) { mk.setAttribute(a[0], a[1]); });
		var path = document.createElementNS(NS, "path");
		path.setAttribute("d", "M0,0 L8,4 L0,8 z");
		mk.appendChild(path);
		defs.appendChild(mk);
		svg.appendChild(defs);
		chain.forEach(function (c, i) {
			var x = i * (W + GAP), r = document.createElementNS(NS, "rect");
			r.setAttribute("x", String(x)); r.setAttribute("y", "4");
			r.setAttribute("width", String(W)); r.setAttribute("height", String(H));
			if (i === chain.length - 1) r.setAttribute("class", "straggler");
			svg.appendChild(r);
			var t = document.createElementNS(NS, "text");
			t.setAttribute("x", String(x + 6)); t.setAttribute("y", "28");
			var s = typeof c === "object" ? (c.text || who(c) + " " + (c.where || c.wait || "")) : String(c);
			t.textContent = s.length > 40 ? s.slice(0, 39) + "\u2026" : s;
			var tt = document.createElementNS(NS, "title");
			tt.textContent = typeof c === "object" ? JSON.stringify(c) : String(c);
			t.appendChild(tt);
			svg.appendChild(t);
			if (i) {
				var l = document.createElementNS(NS, "line");
				l.setAttribute("x1", String(x - GAP)); l.setAttribute("y1", "24");
				l.setAttribute("x2", String(x - 2)); l.setAttribute("y2", "24");
				svg.appendChild(l);
			}
		});
		return svg;
	}

	/* ---- libraries ---- */
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
	var fLib = el("input", {type: "search", id: "f-lib", placeholder: "filter: name, path, rule, version"});
	fLib.value = P.libs || "";
	sl.appendChild(el("div", {cls: "controls"}, fLib, el("span", {cls: "muted", id: "lib-count"})));
	var lt = el("table", {id: "lib-table"});
	sl.appendChild(lt);
	var LIMIT = 400;
	function drawLibs() {
		var q = fLib.value.toLowerCase();
		lt.textContent = "";
		lt.appendChild(el("tr", null, el("th", {text: "requested"}), el("th", {text: "requested by"}),
			el("th", {text: "rule"}), el("th", {text: "path"}), el("th", {text: "version"}),
			el("th", {text: "processes"}), el("th", {text: "tried"})));
		var n = 0, total = 0;
		libList.forEach(function (e) {
			var l = e.l;
			var text = [l.requested, l.path, l.found_via, l.version, l.soname, l.error,
				    Object.keys(e.requesters).join(" ")].join(" ").toLowerCase();
			if (q && text.indexOf(q) < 0) return;
			total++;
			if (n >= LIMIT) return;
			n++;
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
				el("td", {text: e.pids.length > 3 ? e.pids.length + " processes" : e.pids.join(", ")}),
				el("td", null, tried)));
		});
		document.getElementById("lib-count").textContent =
			(total > n ? "first " + n + " of " : "") + plural(total, "library", "libraries") +
			(q ? " matching" : "") + " (one row per file, rule and version; " +
			plural(libList.length, "row") + " in all)";
	}
	fLib.addEventListener("input", drawLibs);
	drawLibs();

	/* ---- versions and environment (env --json) ---- */
	var se = section("env", "Environment");
	var ej = D.env || {};
	var items = ej.items || [];
	if (!items.length) {
		se.appendChild(el("p", {cls: "muted", text: "No GPU library, runtime version or loading variable was recorded."}));
	} else {
		var differ = items.filter(function (it) { return !it.same; }).length;
		se.appendChild(el("p", {id: "env-line", cls: differ ? "sev-warning" : "ok",
			text: plural((ej.units || []).length, "unit") + " compared (ranks, or processes without one): " +
				(differ ? plural(differ, "item") + " differ" : "all agree")}));
		var etb = el("table", {id: "env-table"}, el("tr", null, el("th", {text: "kind"}), el("th", {text: "name"}),
			el("th", {text: "value"}), el("th", {text: "where"})));
		items.forEach(function (it) {
			(it.values || []).forEach(function (v, i) {
				var units = it.same ? "all" : (v.units || []).join(", ");
				etb.appendChild(el("tr", {cls: it.same ? "" : "failed", "data-key": it.key},
					el("td", {text: i ? "" : it.kind}), el("td", {cls: "mono", text: i ? "" : it.key}),
					el("td", {cls: "path", text: side(v)}), el("td", {text: units})));
			});
		});
		se.appendChild(etb);
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
				el("td", {text: what}), el("td", {text: String(ch.count || 0)}),
				el("td", {text: ch.mean_us !== null && ch.mean_us !== undefined ? ch.mean_us.toFixed(1) + " us" : "-"})));
		});
		sc.appendChild(ct);
	}

	/* ---- timeline (timeline.js) ---- */
	dltTimeline(section("timeline", "Timeline"), D.timeline || {traceEvents: []}, {el: el, dur: dur, num: num, plural: plural, P: P});

	var target = P.section || (P.libs ? "libs" : P.failed || P.rank || P.host ? "job" : null);
	if (target && document.getElementById(target))
		document.getElementById(target).scrollIntoView();
	document.body.setAttribute("data-render-ms", String(Math.round(performance.now())));
	document.body.setAttribute("data-errors", String(errors));
	document.body.setAttribute("data-csp-violations", String(violations));
	document.body.setAttribute("data-rendered", "1");
})();
