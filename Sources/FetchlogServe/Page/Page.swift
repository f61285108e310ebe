/// The page at `/`: one self-contained HTML document compiled into the binary (no CDN, no
/// resources bundle, no build step: it works offline and ships with the executable). Its
/// parts live beside this file: the markup here, `PageStyle.css`, `PageScript.js` (Swift
/// string constants, so the compiler embeds them). It reads only the API it is served
/// with, passing on the `?token=` it was opened with, and names no other origin.
///
/// It holds the action token (`<meta name="fetchlog-action-token">`, put in place of the
/// placeholder by `ServeConfiguration.page`): what stderr tells whoever started the server,
/// and what an action from this page sends as `Authorization: Bearer`. Only same-origin
/// script can read the page (no CORS header is ever sent), and on a loopback bind a
/// rebound name's Host is refused before the page is.
///
/// Stable ids and `data-` attributes (`#timeline tr[data-seq]`, `#event-count[data-count]`,
/// `#view-rows[data-count][data-at]`, `#event-body`, `#diff-summary`, `#sql-status`,
/// `#sql-chart rect.bar`, `#sync tr[data-resource][data-next-refresh]`, `#sync-loop[data-summary]`…)
/// are what the browser tests (Tests/Browser/page_test.py, sql_test.py, sync_page_test.py)
/// read: rename them there too.
enum Page {
    static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="fetchlog-action-token" content="\(ServeConfiguration.actionTokenPlaceholder)">
    <title>fetchlog</title>
    <style>
    \(PageStyle.css)
    </style></head>
    <body>
    \(markup)
    <script>
    \(PageScript.js)
    </script></body></html>
    """

    /// The sections: the timeline and the open event side by side (stacked on a phone),
    /// then the view browser with its time slider and diff, then freshness, then the sync
    /// schedule (each resource's next refresh or backoff, the loop's last pass), then SQL (the
    /// tables beside the query box, the answer as a table and, for (text, number) rows, a
    /// bar chart; the views' slider sets the seq it reads).
    static let markup = #"""
    <header><h1>fetchlog</h1>
    <p id="summary" role="status" aria-live="polite">loading…</p>
    <p id="live" class="badge" data-state="connecting">live: connecting</p></header>
    <main>
    <section id="timeline-section" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Log <span id="event-count" data-count="0"></span></h2>
      <div class="filters">
        <label>source <select id="filter-source"><option value="">all</option></select></label>
        <label>outcome <select id="filter-outcome"><option value="">all</option>
          <option>fetched</option><option>304</option><option>failure</option><option>intent</option>
          <option>end of list</option><option>pending</option><option>write</option></select></label>
        <label>text <input id="filter-text" type="search" placeholder="resource, url, status…"></label>
      </div>
      <div class="scroll"><table id="timeline-table"><thead><tr><th>seq</th><th class="wide">time</th><th>source</th><th>resource</th><th>outcome</th></tr></thead>
      <tbody id="timeline"></tbody></table></div>
      <p id="timeline-loading" class="hint" role="status">loading the log…</p>
      <p class="hint">Click a row, or focus it (Tab, ↑ ↓) and press Enter, to open the event.</p>
    </section>
    <section id="event-section" aria-labelledby="event-title">
      <h2 id="event-title">Event</h2>
      <div id="event-detail" data-seq=""><p class="hint">No event open.</p></div>
    </section>
    <section id="view-section" aria-labelledby="view-title">
      <h2 id="view-title">Views</h2>
      <div class="filters">
        <label>view <select id="view-name"><option value="" disabled selected>loading views…</option></select></label>
        <label id="view-param-label" hidden>id <input id="view-param" size="8" inputmode="numeric"></label>
        <label class="slider">as of <input id="view-at" type="range" min="0" max="0" value="0" aria-describedby="view-at-label"></label>
        <span id="view-at-label">now</span>
        <button id="view-now" type="button">now</button>
      </div>
      <p><span id="view-rows" data-count="" data-at=""></span> <span id="view-error" class="fail" role="alert"></span></p>
      <div class="filters"><label>search <input id="view-search" type="search" placeholder="any value"></label>
        <span id="view-filter"></span></div>
      <div id="view-facets"></div>
      <div class="scroll"><table id="view-table"><thead></thead><tbody></tbody></table></div>
      <p class="pager"><button id="view-prev" type="button">◀ prev</button> <span id="view-page"></span> <button id="view-next" type="button">next ▶</button></p>
      <h3>Diff between two seqs</h3>
      <div class="filters">
        <label>from <input id="diff-from" type="number" min="0" value="0"></label>
        <label>to <input id="diff-to" type="number" min="0" value="0"></label>
        <button id="diff-run" type="button">diff this view</button>
      </div>
      <div id="diff-summary" data-added="" data-removed="" data-changed=""></div>
      <div id="diff-detail"></div>
    </section>
    <section id="freshness-section" aria-labelledby="freshness-title">
      <h2 id="freshness-title">Freshness</h2>
      <div class="scroll"><table><thead><tr><th>resource</th><th>state</th><th class="wide">last success</th></tr></thead>
      <tbody id="freshness"><tr><td colspan="3" class="hint">loading…</td></tr></tbody></table></div>
    </section>
    <section id="sync-section" aria-labelledby="sync-title">
      <h2 id="sync-title">Sync</h2>
      <p id="sync-loop" role="status" data-state="" data-passing="" data-last-pass-at="" data-summary="">loading…</p>
      <div class="scroll"><table><thead><tr><th>resource</th><th>state</th><th>next refresh</th><th class="wide">writes waiting</th></tr></thead>
      <tbody id="sync"><tr><td colspan="4" class="hint">loading…</td></tr></tbody></table></div>
    </section>
    <section id="sql-section" aria-labelledby="sql-title">
      <h2 id="sql-title">SQL</h2>
      <div class="sql-grid">
        <nav id="sql-tables" aria-label="tables and their columns" data-count=""><p class="hint">loading tables…</p></nav>
        <div class="sql-main">
          <label for="sql-query">query <span class="hint">(read-only; Ctrl+Enter runs it; the slider above sets the seq it reads)</span></label>
          <textarea id="sql-query" rows="4" spellcheck="false" placeholder="SELECT hairColor, count(*) FROM gnomes GROUP BY 1"></textarea>
          <div class="filters"><button id="sql-run" type="button">run</button>
            <span id="sql-status" role="status" data-count="" data-at="" data-as-of=""></span>
            <span id="sql-error" class="fail" role="alert"></span></div>
          <div id="sql-chart" data-bars=""></div>
          <div class="scroll"><table id="sql-table"><thead></thead><tbody></tbody></table></div>
          <p class="pager"><button id="sql-prev" type="button" disabled>◀ prev</button> <span id="sql-page"></span> <button id="sql-next" type="button" disabled>next ▶</button></p>
        </div>
      </div>
    </section>
    </main>
    """#
}
