/* Test-only: report_browser.sh puts this script into a copy of a report,
 * after the page's own scripts, so that Chromium's --dump-dom carries what
 * a person would see and not only what the DOM holds:
 *
 *   #dlt-probe data-inner-text    document.body.innerText (what is shown:
 *                                 closed <details> and hidden elements
 *                                 left out)
 *              data-visible       every text node that has a box, one a line
 *              data-first-screen  those with a box within the first screen
 *              data-height        the first screen's height (900 px)
 *              data-viewport      the window's inner width x height
 *              data-tl-legend     children of #tl-legend with data-state
 *                                 (-1: no legend)
 *   data-fs="1"                   on each element with a box within the
 *                                 first screen
 *   svg.ranks data-probe-overlaps an arrow's box over a text's, counted
 *             data-probe-overflow a text that runs out of its box, counted
 *
 * Layout is read where the page left it: scrolled to the top unless the
 * address named a section. */
(function () {
	/* The first screen of a 1280x900 window: its top 900 px (headless
	 * Chromium's --dump-dom keeps some of the window for itself, so
	 * innerHeight is less). */
	var H = 900, Y = window.scrollY;
	function inFirst(r) {
		return r.width > 0 && r.height > 0 && r.top + Y < H && r.bottom + Y > 0;
	}
	/* What a closed <details> folds away keeps its boxes for layout
	 * (content-visibility), but nobody sees it. */
	function shown(e) {
		if (e.checkVisibility && !e.checkVisibility({visibilityProperty: true, opacityProperty: true}))
			return false;
		for (; e && e !== document.body; e = e.parentElement) {
			var d = e.parentElement;
			if (d && d.tagName === "DETAILS" && !d.open && e.tagName !== "SUMMARY") return false;
		}
		return true;
	}
	var probe = document.createElement("div");
	probe.id = "dlt-probe";
	probe.hidden = true;
	var visible = [], first = [];
	var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	var range = document.createRange();
	for (var n = walk.nextNode(); n; n = walk.nextNode()) {
		var p = n.parentNode;
		if (!p || /^(SCRIPT|STYLE|NOSCRIPT|TITLE)$/i.test(p.nodeName) || !n.data.trim() ||
		    !shown(p) || (p.tagName === "DETAILS" && !p.open))
			continue;
		range.selectNodeContents(n);
		var rs = range.getClientRects(), boxed = false, top = false;
		for (var i = 0; i < rs.length; i++) {
			if (rs[i].width > 0 && rs[i].height > 0) boxed = true;
			if (inFirst(rs[i])) top = true;
		}
		if (boxed) visible.push(n.data);
		if (top) first.push(n.data);
	}
	var all = document.body.getElementsByTagName("*");
	for (var k = 0; k < all.length; k++)
		if (inFirst(all[k].getBoundingClientRect()) && shown(all[k]))
			all[k].setAttribute("data-fs", "1");
	function meets(a, b) {
		return a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
			a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
	}
	var svgs = document.querySelectorAll("svg.ranks");
	for (var s = 0; s < svgs.length; s++) {
		var texts = svgs[s].querySelectorAll("text"), links = svgs[s].querySelectorAll("path.link");
		var over = 0, out = 0;
		for (var a = 0; a < links.length; a++)
			for (var b = 0; b < texts.length; b++)
				if (meets(links[a].getBoundingClientRect(), texts[b].getBoundingClientRect())) over++;
		var nodes = svgs[s].querySelectorAll("g.node");
		for (var c = 0; c < nodes.length; c++) {
			var box = nodes[c].querySelector("rect").getBoundingClientRect();
			var ts = nodes[c].querySelectorAll("text:not(.tag)");
			for (var d = 0; d < ts.length; d++) {
				var t = ts[d].getBoundingClientRect();
				if (t.right > box.right + 0.5 || t.left < box.left - 0.5 ||
				    t.bottom > box.bottom + 0.5 || t.top < box.top - 0.5) out++;
			}
		}
		svgs[s].setAttribute("data-probe-overlaps", String(over));
		svgs[s].setAttribute("data-probe-overflow", String(out));
	}
	var legend = document.getElementById("tl-legend");
	probe.setAttribute("data-tl-legend", legend ? String(legend.querySelectorAll("[data-state]").length) : "-1");
	probe.setAttribute("data-inner-text", document.body.innerText);
	probe.setAttribute("data-visible", visible.join("\n"));
	probe.setAttribute("data-first-screen", first.join("\n"));
	probe.setAttribute("data-height", String(H));
	probe.setAttribute("data-viewport", window.innerWidth + "x" + window.innerHeight);
	document.body.appendChild(probe);
})();
