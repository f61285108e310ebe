/// The page's behaviour, plain JavaScript over the API (no framework, nothing fetched from
/// elsewhere). Text from the store goes into the document only as `textContent`, never as
/// markup: a body is whatever an upstream sent.
enum PageScript {
    static let js = #"""
    "use strict";
    const token = new URLSearchParams(location.search).get("token");
    // What an action (POST, PATCH, PUT, DELETE) sends as Authorization: Bearer; the server put it in the page.
    const actionToken = document.querySelector('meta[name="fetchlog-action-token"]').content;
    const $ = (id) => document.getElementById(id);
    // Every API call carries the token the page was opened with (a browser cannot add a header to EventSource).
    function withToken(path) {
      return token ? path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token) : path;
    }
    async function api(path) {
      const response = await fetch(withToken(path), { cache: "no-store" });
      const text = await response.text();
      let value;
      try { value = JSON.parse(text); } catch (e) { throw new Error(path + ": " + response.status + " " + text.slice(0, 200)); }
      if (!response.ok) throw new Error(value && value.error ? value.error : path + ": " + response.status);
      return value;
    }
    function el(tag, text, attributes) {
      const node = document.createElement(tag);
      if (text !== undefined && text !== null) node.textContent = String(text);
      for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
      return node;
    }
    function debounce(fn, ms) {
      let timer = null;
      return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
    }
    // Sorted keys, so two exports of the same rows compare equal whatever their member order.
    function canonical(value) {
      if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
      if (value && typeof value === "object") {
        return "{" + Object.keys(value).sort().map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
      }
      return JSON.stringify(value);
    }

    // ---------------------------------------------------------------- the timeline
    const events = new Map();          // seq → header as /api/log gives it
    let lastSeq = 0;
    let openSeq = null;
    const MAX_ROWS = 5000;             // rows drawn at once (the newest that match); the count covers all

    // The mutations still waiting (ids from /api/pending): a write.mutation's row says "pending"
    // until the server confirms it or it is discarded.
    let pendingIDs = new Set();

    // The offline writes' events are intents labelled write.mutation, write.sending, write.answered …
    function isWrite(e) {
      return e.kind === "intent" && typeof e.label === "string" && e.label.startsWith("write.");
    }
    // fetched / 304 / failure / intent / end of list, from the header; "merged" once the header
    // carries the event's origin (`log tail --format json` rows do not yet); "pending" or
    // "write" for the offline writes' events.
    function category(e) {
      if (e.origin) return "merged";
      if (isWrite(e)) return e.label === "write.mutation" && pendingIDs.has(e.seq) ? "pending" : "write";
      switch (e.kind) {
        case "fetched": return "fetched";
        case "not-modified": return "304";
        case "fetch-failed": return "failure";
        case "end-of-list": return "end of list";
        case "intent": return "intent";
        default: return e.kind;
      }
    }
    function remember(e) {
      if (events.has(e.seq)) return false;
      events.set(e.seq, e);
      if (e.seq > lastSeq) lastSeq = e.seq;
      const sources = $("filter-source");
      if (![...sources.options].some((o) => o.value === e.source)) sources.append(el("option", e.source, { value: e.source }));
      return true;
    }
    function matches(e) {
      const source = $("filter-source").value, outcome = $("filter-outcome").value;
      const text = $("filter-text").value.trim().toLowerCase();
      if (source && e.source !== source) return false;
      if (outcome && category(e) !== outcome) return false;
      if (text) {
        const hay = [e.seq, e.recordedAt, e.kind, e.source, e.label, e.outcome, e.method, e.url].join(" ").toLowerCase();
        if (!hay.includes(text)) return false;
      }
      return true;
    }
    function rowFor(e) {
      const row = el("tr", null, { "data-seq": e.seq, tabindex: "0", "data-outcome": category(e) });
      row.append(el("td", e.seq), el("td", e.recordedAt, { class: "wide" }), el("td", e.source), el("td", e.label, { title: e.url || "" }));
      const outcome = el("td");
      const cat = category(e);
      outcome.append(el("span", cat, { class: "badge o-" + cat.split(" ")[0] }));
      if (e.outcome && e.outcome !== "-" && e.outcome !== "304") outcome.append(" " + e.outcome);
      row.append(outcome);
      if (e.seq === openSeq) row.setAttribute("aria-selected", "true");
      return row;
    }
    function drawTimeline() {
      const body = $("timeline");
      const shown = [...events.values()].filter(matches).sort((a, b) => b.seq - a.seq);
      body.replaceChildren(...shown.slice(0, MAX_ROWS).map(rowFor));
      updateCount(shown.length);
    }
    function updateCount(shown) {
      const count = $("event-count");
      count.dataset.count = String(events.size);
      if (shown === undefined) shown = $("timeline").rows.length;
      count.textContent = "· " + events.size + " events" + (shown !== events.size ? " (" + shown + " shown)" : "");
      $("summary").textContent = "seq 1…" + lastSeq + " · " + events.size + " events";
    }
    // A new event at the top without redrawing the rest (the focus and the open row stay).
    function appendLive(e) {
      if (!remember(e)) return;
      // A write's event may change what waits (sent, confirmed, discarded): ask again.
      if (isWrite(e)) reloadPending();
      // A view saved or dropped (CREATE VIEW / DROP VIEW): the tables beside the query box change.
      if (e.kind === "intent" && (e.label === "view.saved" || e.label === "view.dropped")) reloadTables();
      if (matches(e)) $("timeline").prepend(rowFor(e));
      updateCount();
      grewTo(e.seq);
    }
    // Which mutations wait; the rows whose label changed are drawn again. A server without
    // the writes (501) leaves every write row "write".
    async function loadPending() {
      let ids;
      try { ids = new Set((await api("/api/pending")).map((m) => m.id)); } catch (e) { return; }
      const changed = ids.size !== pendingIDs.size || [...ids].some((id) => !pendingIDs.has(id));
      pendingIDs = ids;
      $("timeline").dataset.pending = [...ids].sort((a, b) => a - b).join(" ");
      if (changed) drawTimeline();
    }
    const reloadPending = debounce(loadPending, 100);
    async function loadLog() {
      let from = 1;
      for (;;) {
        const page = await api("/api/log?from=" + from + "&limit=1000");
        for (const e of page) remember(e);
        if (page.length < 1000) break;
        from = page[page.length - 1].seq + 1;
      }
      drawTimeline();
      // The log is in: the page no longer says it is loading it.
      $("timeline-loading").hidden = true;
      $("event-count").dataset.loaded = "true";
    }
    for (const id of ["filter-source", "filter-outcome"]) $(id).addEventListener("change", drawTimeline);
    $("filter-text").addEventListener("input", debounce(drawTimeline, 150));
    $("timeline").addEventListener("click", (event) => {
      const row = event.target.closest("tr[data-seq]");
      if (row) openEvent(Number(row.dataset.seq));
    });
    $("timeline").addEventListener("keydown", (event) => {
      const row = event.target.closest("tr[data-seq]");
      if (!row) return;
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); openEvent(Number(row.dataset.seq)); }
      else if (event.key === "ArrowDown" && row.nextElementSibling) { event.preventDefault(); row.nextElementSibling.focus(); }
      else if (event.key === "ArrowUp" && row.previousElementSibling) { event.preventDefault(); row.previousElementSibling.focus(); }
    });

    // ---------------------------------------------------------------- one event
    const BODY_PAGE = 65536;           // characters of a body shown at once
    let body = { text: "", pretty: null, mode: "pretty", page: 0 };
    function headerList(title, headers) {
      // Closed at first (a click or Enter opens them): the body stays in sight.
      const details = el("details");
      details.append(el("summary", title + " (" + headers.length + ")"));
      const list = el("dl");
      for (const h of headers) list.append(el("dt", h.name), el("dd", h.value));
      details.append(list);
      return details;
    }
    async function openEvent(seq) {
      openSeq = seq;
      for (const row of document.querySelectorAll('#timeline tr[aria-selected="true"]')) row.removeAttribute("aria-selected");
      const row = document.querySelector('#timeline tr[data-seq="' + seq + '"]');
      if (row) row.setAttribute("aria-selected", "true");
      const detail = $("event-detail");
      detail.dataset.seq = String(seq);
      detail.dataset.loaded = "false";
      detail.replaceChildren(el("p", "loading event " + seq + "…", { class: "hint" }));
      let e;
      try { e = await api("/api/events/" + seq); } catch (error) { detail.replaceChildren(el("p", error.message, { class: "fail" })); return; }
      if (openSeq !== seq) return;
      const facts = el("dl", null, { class: "facts" });
      // Two facts a line; a long one (a URL, a message) takes the whole line.
      const add = (name, value, long) => {
        if (value !== null && value !== undefined && value !== "") facts.append(el("dt", name), el("dd", value, long ? { class: "long" } : {}));
      };
      add("seq", e.seq); add("kind", e.kind); add("source", e.source); add("attempt", e.attempt);
      add("recorded at", e.recordedAt, true); add("label", e.label, true);
      if (e.response) add("response", e.response.status);
      add("duration", e.durationMicros === null ? null : (e.durationMicros / 1000).toFixed(3) + " ms");
      if (e.request) add("request", e.request.method + " " + e.request.url, true);
      if (e.failure) add("failure", e.failure.class + ": " + e.failure.message, true);
      if (e.origin) add("origin", e.origin.store + " seq " + e.origin.seq, true);
      add("checksum", e.checksum, true);
      const parts = [el("h3", "Event " + seq), facts];
      if (e.request && e.request.headers.length) parts.push(headerList("request headers", e.request.headers));
      if (e.response) parts.push(headerList("response headers", e.response.headers));
      parts.push(...bodyPart(e.body));
      detail.replaceChildren(...parts);
      detail.dataset.loaded = "true";
      drawBody();
    }
    function bodyPart(b) {
      if (!b) { body = { text: "", pretty: null, mode: "raw", page: 0 }; return [el("p", "no body", { class: "hint" })]; }
      if (b.encoding === "compacted") {
        body = { text: "", pretty: null, mode: "raw", page: 0 };
        return [el("p", "body: " + b.size + " bytes, compacted away (sha256 " + b.sha256 + ")", { class: "hint" })];
      }
      const text = b.encoding === "utf8" ? b.text : b.data;
      let pretty = null;
      if (b.encoding === "utf8") { try { pretty = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { pretty = null; } }
      body = { text, pretty, mode: pretty === null ? "raw" : "pretty", page: 0 };
      const bar = el("div", null, { class: "pager" });
      bar.append(el("strong", "body"), el("span", b.size + " bytes" + (b.encoding === "base64" ? ", binary (base64)" : "")));
      const pb = el("button", "pretty", { id: "body-pretty", type: "button" });
      const rb = el("button", "raw", { id: "body-raw", type: "button" });
      pb.disabled = pretty === null;
      pb.addEventListener("click", () => { body.mode = "pretty"; body.page = 0; drawBody(); });
      rb.addEventListener("click", () => { body.mode = "raw"; body.page = 0; drawBody(); });
      const prev = el("button", "◀", { id: "body-prev", type: "button", "aria-label": "previous part of the body" });
      const next = el("button", "▶", { id: "body-next", type: "button", "aria-label": "next part of the body" });
      prev.addEventListener("click", () => { body.page--; drawBody(); });
      next.addEventListener("click", () => { body.page++; drawBody(); });
      bar.append(pb, rb, prev, el("span", "", { id: "body-page" }), next);
      return [bar, el("pre", "", { id: "event-body", tabindex: "0" })];
    }
    function drawBody() {
      const pre = $("event-body");
      if (!pre) return;
      const text = body.mode === "pretty" && body.pretty !== null ? body.pretty : body.text;
      const pages = Math.max(1, Math.ceil(text.length / BODY_PAGE));
      body.page = Math.min(Math.max(body.page, 0), pages - 1);
      // A part never ends between the two halves of a surrogate pair (an emoji stays whole).
      const cut = (i) => {
        const at = Math.min(text.length, i * BODY_PAGE);
        const code = text.charCodeAt(at - 1);
        return at > 0 && at < text.length && code >= 0xD800 && code <= 0xDBFF ? at + 1 : at;
      };
      pre.textContent = text.slice(cut(body.page), cut(body.page + 1));
      pre.dataset.mode = body.mode;
      $("body-page").textContent = "part " + (body.page + 1) + " of " + pages;
      $("body-prev").disabled = body.page === 0;
      $("body-next").disabled = body.page >= pages - 1;
      $("body-pretty").setAttribute("aria-pressed", String(body.mode === "pretty"));
      $("body-raw").setAttribute("aria-pressed", String(body.mode === "raw"));
    }
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && openSeq !== null) {
        const row = document.querySelector('#timeline tr[data-seq="' + openSeq + '"]');
        if (row) row.focus();
      }
    });

    // ---------------------------------------------------------------- views, the slider, the diff
    const VIEW_PAGE = 100;
    let view = { name: null, json: null, rows: [], record: false, page: 0, facet: null, at: null };
    let followNow = true;              // the slider sits at the newest seq and moves with it

    // The rows of an export: its longest top-level array (`shows`, `gnomes`, `items`…); a view
    // without one (`filters`, `all`) is one record.
    function rowsOf(json) {
      if (Array.isArray(json)) return { rows: json, record: false };
      let best = null;
      for (const key of Object.keys(json || {})) {
        if (Array.isArray(json[key]) && (best === null || json[key].length > json[best].length)) best = key;
      }
      return best === null ? { rows: [json], record: true } : { rows: json[best], record: false };
    }
    function viewName() {
      const name = $("view-name").value;
      return name.includes("/ID") ? name.replace("/ID", "/" + ($("view-param").value.trim() || "1")) : name;
    }
    // Each segment escaped, the slashes of `items/SOURCE/RESOURCE` kept.
    const viewPath = (name) => "/api/views/" + name.split("/").map(encodeURIComponent).join("/");
    function chosenAt() { return followNow ? null : Number($("view-at").value); }
    function showAt() {
      const at = chosenAt();
      $("view-at-label").textContent = at === null ? "now (seq " + lastSeq + ")" : "seq " + at;
    }
    async function loadViews() {
      const names = await api("/api/views");
      const select = $("view-name");
      select.replaceChildren(...names.map((n) => el("option", n, { value: n })));
      const preferred = names.find((n) => n.startsWith("items/")) || (names.includes("shows") ? "shows" : names[0]);
      if (preferred) select.value = preferred;
      await loadView();
    }
    let viewRequest = 0;
    async function loadView() {
      const name = viewName();
      if (!name) return;
      $("view-param-label").hidden = !$("view-name").value.includes("/ID");
      const at = chosenAt();
      const ticket = ++viewRequest;
      const suffix = at === null ? "" : "?at=" + at;
      showAt();
      let json, facets = null;
      try {
        json = await api(viewPath(name) + suffix);
        if (name.startsWith("items/")) facets = await api(viewPath("facets/" + name.slice(6)) + suffix).catch(() => null);
      } catch (error) {
        if (ticket !== viewRequest) return;
        $("view-error").textContent = error.message;
        $("view-rows").dataset.count = "";
        $("view-rows").textContent = "";
        $("view-table").tHead.replaceChildren();
        $("view-table").tBodies[0].replaceChildren();
        return;
      }
      if (ticket !== viewRequest) return;   // a later choice answered first
      $("view-error").textContent = "";
      const sameView = view.name === name;
      const { rows, record } = rowsOf(json);
      view = { name, json, rows, record, page: sameView ? view.page : 0, facet: sameView ? view.facet : null, at };
      const label = $("view-rows");
      label.dataset.count = String(rows.length);
      label.dataset.at = at === null ? "now" : String(at);
      label.dataset.view = name;
      label.textContent = record ? "1 record" : rows.length + " rows";
      if (!$("diff-to").dataset.touched) $("diff-to").value = String(lastSeq);
      drawFacets(facets);
      drawViewTable();
    }
    function drawFacets(facets) {
      const box = $("view-facets");
      box.replaceChildren();
      if (!facets || !Array.isArray(facets.facets)) return;
      for (const f of facets.facets) {
        const group = el("div", null, { class: "filters" });
        group.append(el("strong", f.field));
        if (Array.isArray(f.values)) {
          for (const v of f.values) {
            const span = el("span", null, { class: "facet" });
            const pressed = view.facet && view.facet.field === f.field && view.facet.value === v.value;
            const button = el("button", v.value + " (" + v.count + ")",
                              { type: "button", "aria-pressed": String(!!pressed), "data-field": f.field, "data-value": v.value, "data-count": v.count });
            button.addEventListener("click", () => {
              view.facet = pressed ? null : { field: f.field, value: v.value };
              view.page = 0;
              drawFacets(facets);
              drawViewTable();
            });
            span.append(button);
            group.append(span);
          }
        } else {
          group.append(el("span", f.min + " … " + f.max));
        }
        box.append(group);
      }
    }
    function cellText(value) {
      if (value === null || value === undefined) return "";
      if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object")) return value.join(", ");
      if (typeof value === "object") { const text = JSON.stringify(value); return text.length > 120 ? text.slice(0, 119) + "…" : text; }
      return String(value);
    }
    function facetMatches(row, facet) {
      const value = row[facet.field];
      return Array.isArray(value) ? value.map(String).includes(facet.value) : String(value) === facet.value;
    }
    function drawViewTable() {
      const query = $("view-search").value.trim().toLowerCase();
      let rows = view.rows;
      if (view.facet) rows = rows.filter((r) => r && typeof r === "object" && facetMatches(r, view.facet));
      if (query) rows = rows.filter((r) => JSON.stringify(r).toLowerCase().includes(query));
      $("view-filter").textContent = rows.length !== view.rows.length ? rows.length + " match" : "";
      $("view-filter").dataset.count = String(rows.length);
      const table = $("view-table");
      const pages = Math.max(1, Math.ceil(rows.length / VIEW_PAGE));
      view.page = Math.min(view.page, pages - 1);
      const shown = rows.slice(view.page * VIEW_PAGE, (view.page + 1) * VIEW_PAGE);
      if (view.record) {
        table.tHead.replaceChildren(el("tr"));
        table.tHead.rows[0].append(el("th", "member"), el("th", "value"));
        table.tBodies[0].replaceChildren(...Object.entries(view.json).map(([k, v]) => {
          const tr = el("tr"); tr.append(el("td", k), el("td", cellText(v))); return tr;
        }));
      } else {
        const columns = [];
        for (const r of shown.slice(0, 50)) {
          if (r && typeof r === "object") { for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k); }
        }
        const plain = columns.length === 0;
        const head = el("tr");
        for (const c of plain ? ["value"] : columns) head.append(el("th", c));
        table.tHead.replaceChildren(head);
        table.tBodies[0].replaceChildren(...shown.map((r) => {
          const tr = el("tr");
          for (const c of plain ? [null] : columns) tr.append(el("td", cellText(c === null ? r : r[c])));
          return tr;
        }));
      }
      $("view-page").textContent = "page " + (view.page + 1) + " of " + pages;
      $("view-prev").disabled = view.page === 0;
      $("view-next").disabled = view.page >= pages - 1;
    }
    $("view-name").addEventListener("change", () => { view.facet = null; view.page = 0; loadView(); });
    $("view-param").addEventListener("change", loadView);
    $("view-search").addEventListener("input", debounce(() => { view.page = 0; drawViewTable(); }, 150));
    $("view-prev").addEventListener("click", () => { view.page--; drawViewTable(); });
    $("view-next").addEventListener("click", () => { view.page++; drawViewTable(); });
    const reloadView = debounce(loadView, 120);
    $("view-at").addEventListener("input", () => {
      const slider = $("view-at");
      followNow = Number(slider.value) >= Number(slider.max);
      showAt();
      reloadView();
      rerunSQL();
    });
    $("view-now").addEventListener("click", () => { followNow = true; $("view-at").value = String(lastSeq); loadView(); rerunSQL(); });
    // The log grew to `seq`: the slider's range follows, and so does the view when it shows now.
    const reloadAtNow = debounce(() => { if (followNow) loadView(); }, 150);
    function grewTo(seq) {
      const slider = $("view-at");
      slider.max = String(seq);
      if (followNow) { slider.value = String(seq); reloadAtNow(); rerunSQL(); }
      showAt();
      reloadStatus();
      reloadSync();
    }

    function keyOf(row) {
      if (row && typeof row === "object" && !Array.isArray(row)) {
        for (const k of ["id", "key", "resource", "path", "name"]) if (k in row && row[k] !== null && typeof row[k] !== "object") return k + "=" + row[k];
      }
      return canonical(row);
    }
    async function runDiff() {
      const name = viewName();
      const from = Number($("diff-from").value), to = Number($("diff-to").value);
      const summary = $("diff-summary"), detail = $("diff-detail");
      summary.dataset.added = summary.dataset.removed = summary.dataset.changed = "";
      summary.textContent = "diffing " + name + " from seq " + from + " to seq " + to + "…";
      detail.replaceChildren();
      let a, b;
      try {
        [a, b] = await Promise.all([api(viewPath(name) + "?at=" + from), api(viewPath(name) + "?at=" + to)]);
      } catch (error) { summary.textContent = error.message; return; }
      const before = new Map(), after = new Map();
      const ra = rowsOf(a), rb = rowsOf(b);
      // A single-record view is diffed member by member.
      const entries = (r, json) => r.record ? Object.entries(json).filter(([k]) => k !== "asOf").map(([k, v]) => [k, canonical(v)])
                                              : r.rows.map((row) => [keyOf(row), canonical(row)]);
      for (const [k, v] of entries(ra, a)) before.set(k, v);
      for (const [k, v] of entries(rb, b)) after.set(k, v);
      const added = [...after.keys()].filter((k) => !before.has(k));
      const removed = [...before.keys()].filter((k) => !after.has(k));
      const changed = [...after.keys()].filter((k) => before.has(k) && before.get(k) !== after.get(k));
      summary.dataset.added = String(added.length);
      summary.dataset.removed = String(removed.length);
      summary.dataset.changed = String(changed.length);
      summary.replaceChildren(el("strong", name + ", seq " + from + " → " + to + ": "),
        el("span", "+" + added.length + " added", { class: "added" }), " · ",
        el("span", "−" + removed.length + " removed", { class: "removed" }), " · ",
        el("span", "~" + changed.length + " changed", { class: "changed" }));
      for (const [title, keys, cls] of [["added", added, "added"], ["removed", removed, "removed"], ["changed", changed, "changed"]]) {
        if (!keys.length) continue;
        const details = el("details");
        details.append(el("summary", title + " (" + keys.length + ")"));
        const list = el("ul");
        for (const k of keys.slice(0, 200)) list.append(el("li", k.length > 160 ? k.slice(0, 159) + "…" : k, { class: cls }));
        if (keys.length > 200) list.append(el("li", "… and " + (keys.length - 200) + " more"));
        details.append(list);
        detail.append(details);
      }
    }
    $("diff-run").addEventListener("click", runDiff);
    $("diff-to").addEventListener("change", () => { $("diff-to").dataset.touched = "true"; });

    // ---------------------------------------------------------------- SQL
    // The query box reads GET /api/sql at the seq the views' slider chose (now when it follows
    // the log), a page of SQL_PAGE rows at a time; the tables beside it come from /api/sql/tables.
    const SQL_PAGE = 100;
    let sql = { query: null, offset: 0, ticket: 0 };
    // `census.gnomes` as it is; a part that is not a plain name quoted ("my view").
    const sqlName = (name) => name.split(".").map((p) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? p : '"' + p.replace(/"/g, '""') + '"').join(".");
    async function loadTables() {
      const nav = $("sql-tables");
      let tables;
      try { tables = await api("/api/sql/tables"); } catch (error) { nav.replaceChildren(el("p", error.message, { class: "fail" })); return; }
      nav.replaceChildren(...tables.map((t) => {
        const details = el("details", null, { "data-table": t.table });
        const summary = el("summary");
        // The table's name puts a query over it in the box (and runs it).
        const name = el("button", t.table, { type: "button", title: "SELECT * FROM " + t.table });
        name.addEventListener("click", (event) => {
          event.preventDefault();
          $("sql-query").value = "SELECT * FROM " + sqlName(t.table) + " LIMIT 100";
          runSQL(0);
        });
        summary.append(name, " ", el("span", t.kind === "view" ? "(saved view)" : "(" + t.columns.length + ")", { class: "type" }));
        const list = el("ul");
        for (const c of t.columns) {
          const li = el("li", c.name, { "data-column": c.name });
          if (c.type) li.append(" ", el("span", c.type, { class: "type" }));
          list.append(li);
        }
        details.append(summary, list);
        return details;
      }));
      nav.dataset.count = String(tables.length);
    }
    async function runSQL(offset) {
      const query = $("sql-query").value.trim();
      if (!query) return;
      const at = chosenAt();
      const ticket = ++sql.ticket;
      sql.query = query;
      sql.offset = offset;
      const status = $("sql-status");
      status.textContent = "running…";
      let answer;
      try {
        answer = await api("/api/sql?q=" + encodeURIComponent(query) + "&limit=" + SQL_PAGE + "&offset=" + offset + (at === null ? "" : "&at=" + at));
      } catch (error) {
        if (ticket !== sql.ticket) return;
        $("sql-error").textContent = error.message;
        status.textContent = "";
        status.dataset.count = "";
        status.dataset.error = "true";
        $("sql-table").tHead.replaceChildren();
        $("sql-table").tBodies[0].replaceChildren();
        drawChart(null);
        return;
      }
      if (ticket !== sql.ticket) return;   // a later run answered first
      $("sql-error").textContent = "";
      // A repeated column name has a key of its own in each row object (id, id:1): as the
      // server names them (SQLAnswer.keys), not Object.values (which puts keys like "1" first).
      const keys = rowKeys(answer.columns);
      const rows = answer.rows.map((r) => keys.map((k) => r[k]));
      const first = rows.length ? answer.offset + 1 : 0;
      status.textContent = (rows.length ? "rows " + first + "–" + (answer.offset + rows.length) : "no rows") + (answer.more ? " (more)" : "")
                         + " · as of seq " + answer.asOf;
      status.dataset.error = "false";
      status.dataset.count = String(rows.length);
      status.dataset.offset = String(answer.offset);
      status.dataset.more = String(answer.more);
      status.dataset.asOf = String(answer.asOf);
      status.dataset.at = at === null ? "now" : String(at);
      // What the test compares with `fetchlog sql --format json`: the rows' values in column order.
      status.dataset.rows = JSON.stringify(rows);
      const head = el("tr");
      for (const c of answer.columns) head.append(el("th", c));
      $("sql-table").tHead.replaceChildren(head);
      $("sql-table").tBodies[0].replaceChildren(...rows.map((r) => {
        const tr = el("tr");
        for (const v of r) tr.append(el("td", v === null ? "NULL" : String(v), typeof v === "number" ? { class: "num" } : {}));
        return tr;
      }));
      $("sql-page").textContent = rows.length ? "rows " + first + "–" + (answer.offset + rows.length) : "";
      $("sql-prev").disabled = answer.offset === 0;
      $("sql-next").disabled = !answer.more;
      drawChart(answer.columns.length === 2 && rows.length > 0
                && rows.every((r) => (typeof r[0] === "string" || r[0] === null) && typeof r[1] === "number") ? rows : null);
    }
    // (label, number) rows as horizontal bars, inline SVG (no library): one bar a row, scaled to
    // the largest magnitude; negative values are drawn from the same axis, to the left.
    // The keys of an /api/sql row object: a name already used gets ":N", counting on from
    // its base name's numbers (SQLAnswer.keys on the server, as SQLite names a view's columns).
    function rowKeys(columns) {
      const used = new Set(), next = new Map();
      return columns.map((name) => {
        if (!used.has(name)) { used.add(name); return name; }
        const m = /^(.*):([0-9]+)$/.exec(name);
        const base = m ? m[1] : name;
        let n = next.get(base) || 0, key;
        do { n += 1; key = base + ":" + n; } while (used.has(key));
        next.set(base, n);
        used.add(key);
        return key;
      });
    }

    function drawChart(rows) {
      const box = $("sql-chart");
      box.dataset.bars = rows ? String(rows.length) : "";
      if (!rows) { box.replaceChildren(); return; }
      // SVG's namespace as the HTML parser gives it (a constant, no store text): the page names no URL.
      const probe = document.createElement("div");
      probe.innerHTML = "<svg></svg>";
      const NS = probe.firstChild.namespaceURI;
      const svgEl = (tag, attributes, text) => {
        const node = document.createElementNS(NS, tag);
        for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
        if (text !== undefined) node.textContent = text;
        return node;
      };
      const labelWidth = 160, barSpace = 420, valueWidth = 70, line = 18;
      const max = Math.max(...rows.map((r) => Math.abs(r[1])), 1e-12);
      const hasNegative = rows.some((r) => r[1] < 0);
      const zero = labelWidth + (hasNegative ? barSpace / 2 : 0);
      const scale = (hasNegative ? barSpace / 2 : barSpace) / max;
      const svg = svgEl("svg", { width: labelWidth + barSpace + valueWidth, height: rows.length * line + 4, role: "img",
                                 "aria-label": "bar chart of " + rows.length + " rows" });
      rows.forEach(([label, value], i) => {
        const y = i * line + 2;
        const text = label === null ? "NULL" : label;
        svg.append(svgEl("text", { x: labelWidth - 6, y: y + 12, "text-anchor": "end" }, text.length > 24 ? text.slice(0, 23) + "…" : text));
        const width = Math.abs(value) * scale;
        const bar = svgEl("rect", { class: "bar", x: value < 0 ? zero - width : zero, y, width: Math.max(width, 1), height: line - 4,
                                    "data-label": text, "data-value": value });
        bar.append(svgEl("title", {}, text + ": " + value));
        svg.append(bar, svgEl("text", { x: labelWidth + barSpace + 4, y: y + 12 }, String(value)));
      });
      box.replaceChildren(svg);
    }
    const reloadTables = debounce(loadTables, 150);
    $("sql-run").addEventListener("click", () => runSQL(0));
    $("sql-query").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); runSQL(0); }
    });
    $("sql-prev").addEventListener("click", () => runSQL(Math.max(0, sql.offset - SQL_PAGE)));
    $("sql-next").addEventListener("click", () => runSQL(sql.offset + SQL_PAGE));
    // The slider moved (or the log grew while it follows now): the answer shown is asked again at that seq.
    const rerunSQL = debounce(() => { if (sql.query !== null && $("sql-query").value.trim() === sql.query) runSQL(sql.offset); }, 150);

    // ---------------------------------------------------------------- freshness
    async function loadStatus() {
      let rows;
      try { rows = await api("/api/status"); } catch (error) { $("freshness").replaceChildren(el("tr", error.message)); return; }
      $("freshness").replaceChildren(...rows.map((r) => {
        const state = r.failing ? "failing" : r.freshness;
        let text = r.failing ? "failing: " + (r.lastError || "error") + (r.freshness === "fresh" ? " (data still fresh)" : " (" + r.freshness + ")")
                 : r.freshness === "stale" && r.validUntil ? "stale since " + r.validUntil : r.freshness;
        const tr = el("tr", null, { "data-resource": r.resource, "data-state": state });
        tr.append(el("td", r.resource), el("td", text, { class: "f-" + state }), el("td", r.lastSuccess || "never", { class: "wide" }));
        return tr;
      }));
      $("freshness").dataset.count = String(rows.length);
    }
    const reloadStatus = debounce(loadStatus, 200);

    // ---------------------------------------------------------------- sync
    // GET /api/sync: when each resource is next asked, by the server's clock (its FETCHLOG_NOW
    // in a test), what backs off until when, and under `serve --sync` the loop's last pass.
    let syncPoll = null;
    async function loadSync() {
      clearTimeout(syncPoll);
      syncPoll = null;
      const body = $("sync"), line = $("sync-loop");
      let schedule;
      try { schedule = await api("/api/sync"); } catch (error) {
        const tr = el("tr");
        tr.append(el("td", error.message, { colspan: "4", class: "fail" }));
        body.replaceChildren(tr);
        return;
      }
      body.replaceChildren(...schedule.resources.map((r) => {
        const tr = el("tr", null, { "data-resource": r.resource, "data-level": r.level, "data-due": String(r.due),
                                    "data-next-refresh": r.nextRefresh || "", "data-backoff-until": r.backoffUntil || "" });
        const state = r.failures ? r.level + ", " + r.failures + (r.failures === 1 ? " failure" : " failures") : r.level;
        const next = r.backingOff ? "backing off until " + r.backoffUntil
                   : r.due ? "due now" : r.nextRefresh ? "next refresh " + r.nextRefresh : "never by age";
        tr.append(el("td", r.resource), el("td", state, { class: "f-" + (r.failures ? "failing" : r.level) }),
                  el("td", next, r.backingOff ? { class: "fail" } : {}), el("td", r.pendingWrites || "", { class: "wide" }));
        return tr;
      }));
      if (!schedule.resources.length) {
        const tr = el("tr");
        tr.append(el("td", "nothing to keep in sync yet: fetch a resource or add a source", { colspan: "4", class: "hint" }));
        body.replaceChildren(tr);
      }
      body.dataset.count = String(schedule.resources.length);
      body.dataset.now = schedule.now;
      const loop = schedule.loop;
      if (!loop) {
        line.dataset.state = "off";
        line.textContent = "as of " + schedule.now + " · no sync loop here (fetchlog serve --sync runs one)";
        return;
      }
      line.dataset.state = loop.running ? "running" : "stopped";
      line.dataset.passing = String(loop.passing);
      line.dataset.lastPassAt = loop.lastPass ? loop.lastPass.at : "";
      line.dataset.summary = loop.lastPass ? loop.lastPass.summary : "";
      line.textContent = "as of " + schedule.now + " · sync loop " + (loop.running ? "running" : "stopped")
                       + (loop.passing ? " · a pass under way" : "")
                       + (loop.lastPass ? " · last pass at " + loop.lastPass.at + ": " + loop.lastPass.summary : " · no pass yet");
      // A pass that finds nothing due appends no event: while one is under way (or the loop's
      // first has not ended), ask again rather than wait for an event that may not come.
      if (loop.passing || (loop.running && !loop.lastPass)) syncPoll = setTimeout(loadSync, 1000);
    }
    const reloadSync = debounce(loadSync, 200);

    // ---------------------------------------------------------------- live
    function subscribe() {
      // From the last seq loaded, so nothing appended between the log's load and this is missed;
      // on a reconnect the browser sends Last-Event-ID itself.
      const stream = new EventSource(withToken("/api/stream?lastEventId=" + lastSeq));
      const live = $("live");
      stream.onopen = () => { live.dataset.state = "open"; live.textContent = "live"; };
      stream.onerror = () => {
        live.dataset.state = stream.readyState === EventSource.CLOSED ? "closed" : "connecting";
        live.textContent = stream.readyState === EventSource.CLOSED ? "live: stopped (reload to retry)" : "live: reconnecting";
      };
      stream.addEventListener("appended", (message) => { try { appendLive(JSON.parse(message.data)); } catch (e) { } });
      // A view that changed (when the server announces them): reload the one shown, at now.
      stream.addEventListener("view", (message) => {
        let name = message.data;
        try { const data = JSON.parse(message.data); name = data.view || data.name || name; } catch (e) { }
        if (followNow && name === view.name) reloadAtNow();
      });
    }

    (async () => {
      try {
        await loadLog();
        await loadPending();
        const slider = $("view-at");
        slider.max = String(lastSeq);
        slider.value = String(lastSeq);
        $("diff-to").value = String(lastSeq);
        subscribe();
        await Promise.all([loadViews(), loadStatus(), loadSync(), loadTables()]);
      } catch (error) {
        $("summary").textContent = error.message;
        $("summary").className = "fail";
      }
    })();
    """#
}
