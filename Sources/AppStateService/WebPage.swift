/// The web page standing in for the iOS app: it loads the user's state, then
/// follows changes live (Server-Sent Events, else the long poll) and shows conversations, payments, balances,
/// payment requests and intents as they move through the pipeline. Open it as
/// `/?user=USER&token=TOKEN` (`&wait=SECONDS` sets the long poll's length;
/// `&wait=0` renders once without polling, for snapshots such as headless tests).
enum WebPage {
    static let html = #"""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>intent-pipeline app</title>
        <style>
        body{font-family:system-ui,"Noto Sans CJK SC",sans-serif;margin:2rem;max-width:60rem;color:#1a1a1a;background:#fff}
        h1{font-size:1.4rem} h2{font-size:1.1rem;margin-top:1.5rem;border-bottom:1px solid #ccc}
        table{border-collapse:collapse;width:100%} td,th{padding:.25rem .5rem;text-align:left;border-bottom:1px solid #e5e5e5}
        th{font-weight:600;color:#333} caption{text-align:left;position:absolute;left:-9999px}
        .muted{color:#595959} .summary{display:flex;gap:2rem;flex-wrap:wrap}
        .summary section{flex:1 1 20rem}
        </style></head>
        <body>
        <header><h1>Hello, <span id="user">?</span></h1>
        <p class="muted" aria-live="polite">State as of change <span id="cursor">0</span>; <span id="live">refreshes itself</span>.</p></header>
        <main>
        <div class="summary">
        <section aria-labelledby="balances-heading"><h2 id="balances-heading">Balance</h2>
        <table id="balances"><caption>Balance by currency</caption><thead><tr><th scope="col">Currency</th><th scope="col">Available</th><th scope="col">Held</th></tr></thead><tbody></tbody></table></section>
        <section aria-labelledby="pending-heading"><h2 id="pending-heading">Waiting</h2>
        <table id="pending"><caption>Open payment requests</caption><thead><tr><th scope="col">Request</th><th scope="col">Amount</th><th scope="col">Status</th></tr></thead><tbody></tbody></table></section>
        </div>
        <section aria-labelledby="payments-heading"><h2 id="payments-heading">Payments</h2>
        <table id="payments"><caption>Payments sent and received</caption><thead><tr><th scope="col">With</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Detail</th></tr></thead><tbody></tbody></table></section>
        <section aria-labelledby="requests-heading"><h2 id="requests-heading">Payment requests</h2>
        <table id="paymentRequests"><caption>Every payment request</caption><thead><tr><th scope="col">Request</th><th scope="col">Amount</th><th scope="col">Status</th></tr></thead><tbody></tbody></table></section>
        <section aria-labelledby="messages-heading"><h2 id="messages-heading">Messages</h2>
        <table id="messages"><caption>Messages by conversation, in time order</caption><thead><tr><th scope="col">To</th><th scope="col">Message</th><th scope="col">Status</th><th scope="col">Time</th></tr></thead><tbody></tbody></table></section>
        <section aria-labelledby="intents-heading"><h2 id="intents-heading">What you asked</h2>
        <table id="intents"><caption>Intents and their answers</caption><thead><tr><th scope="col">Kind</th><th scope="col">Answer</th><th scope="col">Code</th><th scope="col">Time</th></tr></thead><tbody></tbody></table></section>
        </main>
        <script>
        const query = new URLSearchParams(location.search);
        const user = query.get("user"), token = query.get("token"), wait = query.get("wait") || "25";
        // Times in the user's locale and zone: ?locale= and ?tz= (an iOS client passes its own), else the browser's.
        const locale = query.get("locale") || navigator.language || "en";
        const zone = query.get("tz") || undefined;
        document.documentElement.lang = locale;
        const timeFormat = (() => { try { return new Intl.DateTimeFormat(locale, {dateStyle: "medium", timeStyle: "short", timeZone: zone}); } catch { return new Intl.DateTimeFormat("en", {dateStyle: "medium", timeStyle: "short"}); } })();
        const state = {balances:{}, payments:{}, paymentRequests:{}, messages:{}, intents:{}};
        let cursor = 0;
        const plural = {balance:"balances", payment:"payments", paymentRequest:"paymentRequests", message:"messages", intent:"intents"};
        function esc(s){return String(s ?? "").replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));}
        function when(text){ const date = new Date(text); return isNaN(date) ? (text ?? "") : timeFormat.format(date); }
        function rows(id, items, cells){
          document.querySelector("#" + id + " tbody").innerHTML = items.map(i => "<tr>" + cells(i).map(c => "<td>" + esc(c) + "</td>").join("") + "</tr>").join("") || "<tr><td class=muted colspan=4>none</td></tr>";
        }
        function request(r){ return r.role === "payer" ? r.counterparty + " asks you for" : "you ask " + r.counterparty + " for"; }
        function render(){
          document.getElementById("user").textContent = user;
          document.getElementById("cursor").textContent = cursor;
          rows("balances", Object.values(state.balances), b => [b.currency, b.available, b.held]);
          const requests = Object.values(state.paymentRequests);
          rows("pending", requests.filter(r => r.status === "pending"), r => [request(r), r.amount, r.status]);
          rows("payments", Object.values(state.payments), p => [(p.direction === "received" ? "received from " : "to ") + p.counterparty, p.amount, p.status, p.reason ?? ""]);
          rows("paymentRequests", requests, r => [request(r), r.amount, r.status]);
          const messages = Object.values(state.messages).sort((a, b) => (a.conversation ?? "").localeCompare(b.conversation ?? "") || String(a.at).localeCompare(String(b.at)));
          rows("messages", messages, m => [(m.to || []).join(", "), m.content, m.status, when(m.at)]);
          const intents = Object.values(state.intents).sort((a, b) => String(a.updatedAt).localeCompare(String(b.updatedAt)));
          rows("intents", intents, i => [i.kind, i.message, i.code, when(i.updatedAt)]);
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
          source.addEventListener("open", () => { opened = true; document.body.setAttribute("data-live", "events"); document.getElementById("live").textContent = "live"; });
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
