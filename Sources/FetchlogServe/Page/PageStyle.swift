/// The page's style: system fonts only (nothing fetched), two columns at desktop width and
/// one on a phone, a focus ring that is always visible for keyboard users.
enum PageStyle {
    static let css = #"""
    :root{--fg:#1d1d1f;--muted:#666;--line:#ddd;--bg:#fff;--panel:#f7f7f9;--accent:#1a5fb4;--fail:#b00020;--ok:#1b7a33;--warn:#9a6700}
    *{box-sizing:border-box}
    body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:var(--fg);background:var(--bg)}
    header{display:flex;flex-wrap:wrap;align-items:baseline;gap:.4rem 1rem;padding:.5rem 1rem;border-bottom:1px solid var(--line);background:var(--panel)}
    h1{font-size:1.2rem;margin:0}h2{font-size:1rem;margin:.2rem 0 .4rem}h3{font-size:.95rem;margin:.8rem 0 .3rem}
    header p{margin:0}
    main{display:grid;grid-template-columns:minmax(0,1.15fr) minmax(0,1fr);gap:.8rem;padding:.8rem 1rem}
    section{min-width:0;border:1px solid var(--line);border-radius:6px;padding:.5rem .7rem;background:var(--bg)}
    .scroll{overflow:auto;max-height:44vh;border:1px solid var(--line);border-radius:4px}
    #view-section .scroll{max-height:50vh}
    /* The open event scrolls within the timeline's height: the views stay in sight below. */
    #event-detail{max-height:calc(44vh + 5.5rem);overflow:auto}
    #event-detail pre{max-height:none;overflow:visible}
    table{border-collapse:collapse;width:100%}
    td,th{text-align:left;padding:.2rem .45rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:anywhere}
    th{position:sticky;top:0;background:var(--panel);z-index:1}
    th,#timeline td:nth-child(-n+2){white-space:nowrap}
    #view-table td{overflow-wrap:break-word;min-width:3rem;max-width:26rem}
    #timeline tr{cursor:pointer}
    #timeline tr:hover{background:#eef3fb}
    #timeline tr[aria-selected="true"]{background:#dbe7f8}
    :focus-visible{outline:3px solid var(--accent);outline-offset:1px}
    tr:focus-visible{outline-offset:-3px}
    .filters{display:flex;flex-wrap:wrap;gap:.4rem .8rem;align-items:center;margin:.3rem 0}
    input,select,button{font:inherit;max-width:100%}
    button{cursor:pointer;padding:.1rem .6rem}
    .slider{display:flex;align-items:center;gap:.4rem;flex:1 1 14rem}
    .slider input{flex:1;min-width:8rem}
    .badge{display:inline-block;padding:0 .45rem;border-radius:999px;font-size:.85em;border:1px solid currentColor;white-space:nowrap}
    .o-fetched{color:var(--ok)}.o-304{color:var(--accent)}.o-failure{color:var(--fail)}
    .o-intent,.o-merged,.o-end,.o-pending{color:var(--warn)}.o-write{color:var(--ok)}
    .fail,.f-failing{color:var(--fail)}.f-fresh{color:var(--ok)}.f-stale{color:var(--warn)}
    #live[data-state="open"]{color:var(--ok)}#live[data-state="closed"]{color:var(--fail)}
    .hint{color:var(--muted);font-size:.85em;margin:.3rem 0}
    pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--panel);border:1px solid var(--line);border-radius:4px;padding:.4rem;max-height:50vh;overflow:auto;margin:.3rem 0;font:12px/1.35 ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace}
    dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.1rem .8rem;margin:.2rem 0}
    dl.facts{grid-template-columns:max-content minmax(0,1fr) max-content minmax(0,1fr)}
    dl.facts dd.long{grid-column:span 3}
    dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
    details{margin:.3rem 0}summary{cursor:pointer}
    .facet{display:inline-block;margin:.1rem .5rem .1rem 0}
    .facet button{border:1px solid var(--line);background:var(--panel);border-radius:4px}
    .facet button[aria-pressed="true"]{background:#dbe7f8;border-color:var(--accent)}
    .pager{display:flex;gap:.6rem;align-items:center;margin:.3rem 0}
    .added{color:var(--ok)}.removed{color:var(--fail)}.changed{color:var(--warn)}
    #sql-section,#sync-section{grid-column:1/-1}
    #sync-section .scroll{max-height:30vh}
    .sql-grid{display:grid;grid-template-columns:minmax(10rem,1fr) minmax(0,3fr);gap:.8rem}
    #sql-tables{max-height:60vh;overflow:auto;border:1px solid var(--line);border-radius:4px;padding:.3rem .5rem}
    #sql-tables ul{margin:.1rem 0 .3rem;padding-left:1rem}
    #sql-tables .type{color:var(--muted);font-size:.85em}
    #sql-tables summary button{border:0;background:none;padding:0;color:var(--accent);font-weight:600}
    #sql-query{display:block;width:100%;font:12px/1.35 ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;margin:.2rem 0}
    #sql-chart svg{display:block;max-width:100%;margin:.3rem 0}
    #sql-chart .bar{fill:var(--accent)}
    #sql-chart text{font-size:11px;fill:var(--fg)}
    #sql-table td.num{text-align:right;font-variant-numeric:tabular-nums}
    @media (max-width:760px){
      .sql-grid{grid-template-columns:minmax(0,1fr)}
      main{grid-template-columns:minmax(0,1fr);padding:.5rem}
      .wide{display:none}
      dl.facts{grid-template-columns:max-content minmax(0,1fr)}
      dl.facts dd.long{grid-column:auto}
      .scroll,#event-detail{max-height:60vh}
      td,th{padding:.2rem .3rem}
    }
    """#
}
