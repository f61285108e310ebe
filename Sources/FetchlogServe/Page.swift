/// The page at `/`: one self-contained HTML document compiled into the binary (no CDN, no
/// build step; it works offline). It lists the timeline from `/api/log`, passing on the
/// `?token=` it was opened with.
enum Page {
    static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
    <title>fetchlog</title>
    <style>body{font:14px system-ui,sans-serif;margin:1rem}table{border-collapse:collapse;width:100%}
    td,th{text-align:left;padding:.2rem .5rem;border-bottom:1px solid #ddd}th{position:sticky;top:0;background:#fff}
    .fail{color:#b00}</style></head>
    <body><h1>fetchlog</h1><p id="summary">loading…</p>
    <table><thead><tr><th>seq</th><th>recorded at</th><th>kind</th><th>source</th><th>outcome</th><th>request</th></tr></thead>
    <tbody id="timeline"></tbody></table>
    <script>
    const token = new URLSearchParams(location.search).get("token");
    const auth = token ? "&token=" + encodeURIComponent(token) : "";
    async function load(from) {
      const response = await fetch("/api/log?from=" + from + "&limit=1000" + auth);
      const events = await response.json();
      if (!response.ok) { document.getElementById("summary").textContent = events.error; return; }
      const body = document.getElementById("timeline");
      for (const e of events) {
        const row = body.insertRow();
        if (e.kind.includes("failed")) row.className = "fail";
        for (const text of [e.seq, e.recordedAt, e.kind, e.source, e.outcome, e.url ? e.method + " " + e.url : e.label]) {
          row.insertCell().textContent = text;
        }
      }
      document.getElementById("summary").textContent = body.rows.length + " events";
      if (events.length === 1000) await load(events[events.length - 1].seq + 1);
    }
    load(1);
    </script></body></html>
    """
}
