/// The web page standing in for the iOS app: it loads the user's state, then
/// follows changes live (Server-Sent Events, else the long poll) and shows conversations, payments, balances,
/// payment requests and intents as they move through the pipeline. Open it as
/// `/?user=USER&token=TOKEN` (`&wait=SECONDS` sets the long poll's length;
/// `&wait=0` renders once without polling, for snapshots such as headless tests).
enum WebPage {
    static let html = #"""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>intent-pipeline app</title>
        <style>
        body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem;color:#222}
        h1{font-size:1.4rem} h2{font-size:1.1rem;margin-top:1.5rem;border-bottom:1px solid #ddd}
        table{border-collapse:collapse;width:100%} td,th{padding:.25rem .5rem;text-align:left;border-bottom:1px solid #eee}
        .muted{color:#888} .done{color:#186a3b} .progress{color:#9a6700}
        </style></head>
        <body>
        <h1>Hello, <span id="user">?</span></h1>
        <p class="muted">State as of change <span id="cursor">0</span>; refreshes itself.</p>
        <h2>Balance</h2><table id="balances"></table>
        <h2>Payments</h2><table id="payments"></table>
        <h2>Payment requests</h2><table id="paymentRequests"></table>
        <h2>Messages</h2><table id="messages"></table>
        <h2>Intents</h2><table id="intents"></table>
        <script>
        const query = new URLSearchParams(location.search);
        const user = query.get("user"), token = query.get("token"), wait = query.get("wait") || "25";
        const state = {balances:{}, payments:{}, paymentRequests:{}, messages:{}, intents:{}};
        let cursor = 0;
        const plural = {balance:"balances", payment:"payments", paymentRequest:"paymentRequests", message:"messages", intent:"intents"};
        function esc(s){return String(s ?? "").replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));}
        function rows(id, items, cells){
          document.getElementById(id).innerHTML = Object.values(items).map(i => "<tr>" + cells(i).map(c => "<td>" + esc(c) + "</td>").join("") + "</tr>").join("") || "<tr><td class=muted>none</td></tr>";
        }
        function render(){
          document.getElementById("user").textContent = user;
          document.getElementById("cursor").textContent = cursor;
          rows("balances", state.balances, b => [b.currency, b.available + " available", b.held + " held"]);
          rows("payments", state.payments, p => [(p.direction === "received" ? "received from " : "to ") + p.counterparty, p.amount, p.status, p.reason ?? ""]);
          rows("paymentRequests", state.paymentRequests, r => [r.role === "payer" ? r.counterparty + " asks you for" : "you ask " + r.counterparty + " for", r.amount, r.status]);
          rows("messages", state.messages, m => [(m.to || []).join(", "), m.content, m.status, m.at]);
          rows("intents", state.intents, i => [i.kind, i.message, i.code, i.status]);
        }
        async function api(path){
          const response = await fetch("/api/users/" + encodeURIComponent(user) + path, {headers: {Authorization: "Bearer " + token}});
          if (!response.ok) throw new Error(response.status + " " + await response.text());
          return response.json();
        }
        async function load(){
          const snapshot = await api("/state");
          for (const [kind, key] of Object.entries(plural)) for (const item of snapshot[key] || []) state[key][item.id ?? item.currency] = item;
          cursor = snapshot.cursor; render();
          document.body.setAttribute("data-loaded", "true");
          if (wait !== "0") live();
        }
        function apply(page){
          for (const change of page.changes) state[plural[change.kind]][change.id] = change.item;
          cursor = page.cursor; render();
        }
        // Server-Sent Events; the long poll when the browser has none or the stream cannot open.
        function live(){
          if (!window.EventSource) return poll();
          const source = new EventSource("/api/users/" + encodeURIComponent(user) + "/events?since=" + cursor + "&token=" + encodeURIComponent(token));
          let opened = false;
          source.addEventListener("open", () => { opened = true; document.body.setAttribute("data-live", "events"); });
          source.addEventListener("changes", event => apply(JSON.parse(event.data)));
          source.addEventListener("error", () => { if (!opened) { source.close(); poll(); } });
        }
        async function poll(){
          document.body.setAttribute("data-live", "poll");
          while (true) {
            try { apply(await api("/changes?since=" + cursor + "&wait=" + wait)); }
            catch (error) { document.getElementById("cursor").textContent = "error: " + error.message; await new Promise(r => setTimeout(r, 2000)); }
          }
        }
        load().catch(error => { document.body.insertAdjacentHTML("beforeend", "<p id=error>" + esc(error.message) + "</p>"); });
        </script>
        </body></html>
        """#
}
