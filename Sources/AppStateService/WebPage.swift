/// The web page standing in for the iOS app: it loads the user's state, then
/// follows changes live (Server-Sent Events, else the long poll). Balances and
/// open requests are at the top; below, one conversation per person (messages,
/// payments and requests in time order, the person named as the user's
/// contacts name them); then what the user asked and the answers. The page's
/// own words come in English, Chinese or Russian, and times and amounts are
/// formatted for the user's locale and zone (`?locale=` and `?tz=`, else the
/// browser's). Open it as `/?user=USER&token=TOKEN` (`&wait=SECONDS` sets the
/// long poll's length; `&wait=0` renders once without following changes, for
/// snapshots such as headless tests).
enum WebPage {
    static let html = #"""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>intent-pipeline app</title>
        <style>
        body{font-family:system-ui,"Noto Sans CJK SC",sans-serif;margin:2rem;max-width:60rem;color:#1a1a1a;background:#fff}
        h1{font-size:1.4rem} h2{font-size:1.1rem;margin-top:1.5rem;border-bottom:1px solid #ccc} h3{font-size:1rem;margin:1rem 0 .25rem}
        table{border-collapse:collapse;width:100%} td,th{padding:.25rem .5rem;text-align:left;border-bottom:1px solid #e5e5e5}
        th{font-weight:600;color:#333} caption{text-align:left;position:absolute;left:-9999px}
        .muted{color:#595959} .summary{display:flex;gap:2rem;flex-wrap:wrap}
        .summary section{flex:1 1 20rem} td.time{white-space:nowrap;color:#595959}
        </style></head>
        <body>
        <header><h1 id="hello"></h1>
        <p class="muted" aria-live="polite"><span id="as-of"></span> <span id="cursor">0</span>; <span id="live"></span>.</p></header>
        <main>
        <div class="summary">
        <section aria-labelledby="balances-heading"><h2 id="balances-heading" data-t="balance"></h2>
        <table id="balances"><caption data-t="balanceCaption"></caption><thead><tr><th scope="col" data-t="currency"></th><th scope="col" data-t="available"></th><th scope="col" data-t="held"></th></tr></thead><tbody></tbody></table></section>
        <section aria-labelledby="pending-heading"><h2 id="pending-heading" data-t="waiting"></h2>
        <table id="pending"><caption data-t="waitingCaption"></caption><thead><tr><th scope="col" data-t="request"></th><th scope="col" data-t="amount"></th><th scope="col" data-t="time"></th></tr></thead><tbody></tbody></table></section>
        </div>
        <section aria-labelledby="conversations-heading"><h2 id="conversations-heading" data-t="conversations"></h2>
        <div id="conversations"></div></section>
        <section aria-labelledby="intents-heading"><h2 id="intents-heading" data-t="asked"></h2>
        <table id="intents"><caption data-t="askedCaption"></caption><thead><tr><th scope="col" data-t="time"></th><th scope="col" data-t="kind"></th><th scope="col" data-t="answer"></th><th scope="col" data-t="code"></th></tr></thead><tbody></tbody></table></section>
        </main>
        <script>
        const query = new URLSearchParams(location.search);
        const user = query.get("user"), token = query.get("token"), wait = query.get("wait") || "25";
        // Times and amounts in the user's locale and zone: ?locale= and ?tz= (an iOS client passes its own), else the browser's.
        const locale = query.get("locale") || navigator.language || "en";
        const zone = query.get("tz") || undefined;
        document.documentElement.lang = locale;
        const timeFormat = (() => { try { return new Intl.DateTimeFormat(locale, {dateStyle: "medium", timeStyle: "short", timeZone: zone}); } catch { return new Intl.DateTimeFormat("en", {dateStyle: "medium", timeStyle: "short"}); } })();
        // The page's own words; {0} is a person's name. Terms are the API's words (kinds, codes, statuses) in the user's language.
        const words = {
          en: {hello: "Hello, {0}", asOf: "State as of change", live: "live", polling: "refreshes itself", once: "as loaded", balance: "Balance", balanceCaption: "Balance by currency", currency: "Currency", available: "Available", held: "Held", waiting: "Waiting", waitingCaption: "Payment requests waiting for an answer", request: "Request", amount: "Amount", time: "Time", conversations: "Conversations", conversationCaption: "Messages, payments and requests with {0}, in time order", what: "What", detail: "Detail", status: "Status", asked: "What you asked", askedCaption: "Intents and their answers", kind: "Kind", answer: "Answer", code: "Code", none: "none", paymentTo: "payment to {0}", paymentFrom: "payment from {0}", messageTo: "message to {0}", asksYou: "{0} asks you for", youAsk: "you ask {0} for", you: "you", someone: "someone", terms: {}},
          zh: {hello: "你好，{0}", asOf: "状态截至变更", live: "实时更新", polling: "自动刷新", once: "已加载", balance: "余额", balanceCaption: "各币种余额", currency: "币种", available: "可用", held: "冻结", waiting: "待处理", waitingCaption: "等待回复的收款请求", request: "请求", amount: "金额", time: "时间", conversations: "对话", conversationCaption: "与{0}的消息、付款和请求（按时间排序）", what: "内容", detail: "详情", status: "状态", asked: "你的请求", askedCaption: "意图及回复", kind: "类型", answer: "回复", code: "结果", none: "无", paymentTo: "付款给{0}", paymentFrom: "收到{0}的付款", messageTo: "发给{0}的消息", asksYou: "{0}向你请求", youAsk: "你向{0}请求", you: "你", someone: "某人", terms: {sendPayment: "付款", requestPayment: "请求付款", sendMessage: "发消息", searchForMessages: "查找消息", setMessageAttribute: "标记消息", success: "成功", failure: "失败", failureRequiringAppLaunch: "需打开应用", failureInsufficientFunds: "余额不足", sent: "已付款", received: "已收款", "awaiting confirmation": "待确认", cancelled: "已取消", pending: "待处理", paid: "已支付", declined: "已拒绝", delivered: "已送达", sending: "发送中", done: "完成", inProgress: "处理中"}},
          ru: {hello: "Здравствуйте, {0}", asOf: "Состояние на изменение", live: "обновляется сразу", polling: "обновляется само", once: "как загружено", balance: "Баланс", balanceCaption: "Баланс по валютам", currency: "Валюта", available: "Доступно", held: "Заблокировано", waiting: "Ожидают ответа", waitingCaption: "Запросы денег, ожидающие ответа", request: "Запрос", amount: "Сумма", time: "Время", conversations: "Беседы", conversationCaption: "Сообщения, платежи и запросы с {0} по времени", what: "Что", detail: "Подробности", status: "Статус", asked: "Ваши запросы", askedCaption: "Намерения и ответы", kind: "Вид", answer: "Ответ", code: "Код", none: "нет", paymentTo: "платёж для {0}", paymentFrom: "платёж от {0}", messageTo: "сообщение для {0}", asksYou: "{0} просит у вас", youAsk: "вы просите у {0}", you: "вы", someone: "кто-то", terms: {sendPayment: "платёж", requestPayment: "запрос денег", sendMessage: "сообщение", searchForMessages: "поиск сообщений", setMessageAttribute: "отметка сообщения", success: "успешно", failure: "не удалось", failureRequiringAppLaunch: "нужно открыть приложение", failureInsufficientFunds: "недостаточно средств", sent: "отправлен", received: "получен", "awaiting confirmation": "ждёт подтверждения", cancelled: "отменён", pending: "ожидает", paid: "оплачен", declined: "отклонён", delivered: "доставлено", sending: "отправляется", done: "готово", inProgress: "выполняется"}},
        };
        // Lookups by names that come from outside (the locale, ids, statuses) read own properties
        // only: "constructor" or "__proto__" is a name like any other, not the object's machinery.
        function own(object, key){ return Object.hasOwn(object, key) ? object[key] : undefined; }
        function dictionary(){ return Object.create(null); }
        const language = own(words, locale.split("-")[0].toLowerCase()) || words.en;
        function t(key, name){ return (own(language, key) ?? words.en[key]).replace("{0}", () => String(name ?? "")); }
        function term(s){ return own(language.terms, s) ?? s ?? ""; }
        const collator = (() => { try { return new Intl.Collator(locale); } catch { return new Intl.Collator("en"); } })();
        for (const element of document.querySelectorAll("[data-t]")) element.textContent = t(element.dataset.t);
        const state = {balances: dictionary(), payments: dictionary(), paymentRequests: dictionary(), messages: dictionary(), intents: dictionary(), contacts: dictionary()};
        let cursor = 0;
        const plural = {balance:"balances", payment:"payments", paymentRequest:"paymentRequests", message:"messages", intent:"intents", contact:"contacts"};
        function esc(s){return String(s ?? "").replace(/[&<>"']/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c]));}
        function when(text){ const date = new Date(text); return isNaN(date) ? (text ?? "") : timeFormat.format(date); }
        // "100.5 CNY" as the user's locale writes it ("¥100.50"); the decimal string is formatted exactly, never through a float.
        function money(text, currency){
          const [amount, code] = currency ? [text, currency] : String(text ?? "").split(" ");
          try { return new Intl.NumberFormat(locale, {style: "currency", currency: code}).format(amount); } catch { return text ?? ""; }
        }
        function table(items, cells, timeColumn){
          if (!items.length) return "<tr><td class=muted colspan=4>" + esc(t("none")) + "</td></tr>";
          return items.map(i => "<tr>" + cells(i).map((c, n) => "<td" + (n === timeColumn ? " class=time" : "") + ">" + esc(c) + "</td>").join("") + "</tr>").join("");
        }
        function rows(id, items, cells, timeColumn){ document.querySelector("#" + id + " tbody").innerHTML = table(items, cells, timeColumn); }
        // The other person of a payment or request as the server names them (the API serves no account id):
        // the user's contact (its conversation), else the handle the user paid, else "someone", each on its own.
        function person(item){
          if (item.counterpartyContact) return ["contact:" + item.counterpartyContact, String(item.counterpartyName ?? "")];
          return item.counterpartyName == null ? ["item:" + item.id, t("someone")] : ["handle:" + item.counterpartyName, String(item.counterpartyName)];
        }
        function requestWords(r, name){ return r.role === "payer" ? t("asksYou", name) : t("youAsk", name); }
        // One conversation per person: messages to one contact, and payments and requests the server names by it.
        function conversations(){
          const groups = new Map();
          function add(key, title, entry){ if (!groups.has(key)) groups.set(key, {title, entries: []}); groups.get(key).entries.push(entry); }
          for (const p of Object.values(state.payments)) {
            const [key, name] = person(p);
            add(key, name, {at: p.at, what: t(p.direction === "received" ? "paymentFrom" : "paymentTo", name), detail: [money(p.amount), p.note, p.reason].filter(Boolean).join(" · "), status: p.status});
          }
          for (const r of Object.values(state.paymentRequests)) {
            const [key, name] = person(r);
            add(key, name, {at: r.at, what: requestWords(r, name), detail: [money(r.amount), r.note].filter(Boolean).join(" · "), status: r.status});
          }
          for (const m of Object.values(state.messages)) {
            const ids = m.toContacts || [], names = (m.to || []).join(", ");
            const [key, name] = ids.length === 1 ? ["contact:" + ids[0], state.contacts[ids[0]]?.name ?? names] : ["conversation:" + m.conversation, names];
            add(key, name, {at: m.at, what: t("messageTo", name), detail: m.content, status: m.status});
          }
          const time = e => { const date = new Date(e.at); return isNaN(date) ? 0 : date.getTime(); };
          const list = [...groups.values()];
          for (const group of list) { group.entries.sort((a, b) => time(a) - time(b)); group.latest = time(group.entries[group.entries.length - 1]); }
          list.sort((a, b) => b.latest - a.latest || collator.compare(String(a.title ?? ""), String(b.title ?? "")));
          document.getElementById("conversations").innerHTML = list.map((group, n) =>
            "<section class=conversation aria-labelledby=conversation-" + n + "><h3 id=conversation-" + n + ">" + esc(group.title) + "</h3>"
            + "<table><caption>" + esc(t("conversationCaption", group.title)) + "</caption><thead><tr><th scope=col>" + esc(t("time")) + "</th><th scope=col>" + esc(t("what")) + "</th><th scope=col>" + esc(t("detail")) + "</th><th scope=col>" + esc(t("status")) + "</th></tr></thead><tbody>"
            + table(group.entries, e => [when(e.at), e.what, e.detail, term(e.status)], 0) + "</tbody></table></section>").join("")
            || "<p class=muted>" + esc(t("none")) + "</p>";
        }
        function render(){
          document.getElementById("hello").textContent = t("hello", user);
          document.getElementById("as-of").textContent = t("asOf");
          document.getElementById("cursor").textContent = cursor;
          rows("balances", Object.values(state.balances), b => [b.currency, money(b.available, b.currency), money(b.held, b.currency)]);
          const pending = Object.values(state.paymentRequests).filter(r => r.status === "pending");
          rows("pending", pending, r => [requestWords(r, person(r)[1]), money(r.amount), when(r.at)], 2);
          conversations();
          const intents = Object.values(state.intents).sort((a, b) => String(a.updatedAt).localeCompare(String(b.updatedAt)));
          rows("intents", intents, i => [when(i.updatedAt), term(i.kind), i.message, term(i.code)], 0);
        }
        async function api(path){
          const response = await fetch("/api/users/" + encodeURIComponent(user) + path, {headers: {Authorization: "Bearer " + token}});
          if (!response.ok) throw new Error(response.status + " " + await response.text());
          return response.json();
        }
        async function load(){
          const snapshot = await api("/state");
          for (const key of Object.values(plural)) for (const item of snapshot[key] || []) state[key][item.id ?? item.currency] = item;
          cursor = snapshot.cursor;
          document.getElementById("live").textContent = t("once");
          render();
          document.body.setAttribute("data-loaded", "true");
          if (wait !== "0") live();
        }
        function apply(page){
          for (const change of page.changes) {
            const items = own(state, own(plural, change.kind));
            if (!items) continue;
            if (change.item.deleted) delete items[change.id]; else items[change.id] = change.item;
          }
          cursor = page.cursor; render();
        }
        // Server-Sent Events; the long poll when the browser has none or the stream cannot open.
        function live(){
          if (!window.EventSource) return poll();
          const source = new EventSource("/api/users/" + encodeURIComponent(user) + "/events?since=" + cursor + "&token=" + encodeURIComponent(token));
          let opened = false;
          source.addEventListener("open", () => { opened = true; document.body.setAttribute("data-live", "events"); document.getElementById("live").textContent = t("live"); });
          source.addEventListener("changes", event => apply(JSON.parse(event.data)));
          source.addEventListener("error", () => { if (!opened) { source.close(); poll(); } });
        }
        async function poll(){
          document.body.setAttribute("data-live", "poll");
          document.getElementById("live").textContent = t("polling");
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
