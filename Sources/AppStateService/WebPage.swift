import Foundation
import IntentEvents
import Localization

/// The web page standing in for the iOS app: it loads the user's state, then
/// follows changes live (Server-Sent Events, else the long poll). Balances and
/// open requests are at the top; below, one conversation per person (messages,
/// payments and requests in time order, the person named as the user's
/// contacts name them); then what the user asked and the answers. The page's
/// own words come in English, Chinese or Russian, and times and amounts are
/// formatted for the viewer's locale and zone: the language the user chose in the
/// app's settings (the `setting` item `language`, which the app state keeps from the
/// settings topic), else the client's (`?locale=`, else the browser's), and `?tz=`,
/// else the browser's zone. The assistant's answers are said in that language from
/// their key and arguments, whatever language the request was in, and codes in words,
/// never raw.
/// Open it as `/?user=USER#token=TOKEN` (`?token=` still works): the page keeps the
/// token for the tab and takes it out of the address bar; without one, or with one the
/// server refuses, it shows a sign-in form. `&wait=SECONDS` sets the long poll's
/// length; `&wait=0` renders once without following changes, for snapshots such as
/// headless tests.
enum WebPage {
    /// The page, with the assistant's message catalogs (``MessageCatalog``) in it, so the
    /// answers are said in the viewer's language from their key and arguments.
    static let html = template.replacingOccurrences(of: "/*CATALOGS*/{}", with: catalogs)

    /// Every catalog as `{language: {key: sentence}}`, safe inside a script element.
    static var catalogs: String {
        let value = JSONValue.object(
            Dictionary(
                uniqueKeysWithValues: MessageCatalog.all.map { catalog in
                    (
                        catalog.language,
                        JSONValue.object(
                            Dictionary(
                                uniqueKeysWithValues: catalog.sentences.map {
                                    ($0.key.rawValue, JSONValue.string($0.value))
                                }
                            ))
                    )
                }))
        return String(decoding: CanonicalJSON.encode(value), as: UTF8.self).replacingOccurrences(of: "</", with: "<\\/")
    }

    static let template = #"""
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
        <form id="sign-in" hidden><p id="sign-in-help"></p><p id="sign-in-failed" role="alert" hidden></p><label><span id="token-label"></span> <input id="token" type="password" autocomplete="current-password" required></label> <button id="sign-in-button"></button></form>
        <p class="muted" aria-live="polite"><span id="as-of"></span> <span id="cursor">0</span><span data-t="semicolon"></span><span id="live"></span><span data-t="period"></span></p></header>
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
        const user = query.get("user"), wait = query.get("wait") || "25";
        // The token never stays in the address bar (history, bookmarks, Referer): given as
        // #token= (or ?token=, as older links have it), it is kept for this tab and removed.
        const fragment = new URLSearchParams(location.hash.slice(1));
        let token = fragment.get("token") || query.get("token") || sessionStorage.getItem("token:" + user);
        if (token) sessionStorage.setItem("token:" + user, token);
        if (fragment.has("token") || query.has("token")) { query.delete("token"); history.replaceState(null, "", location.pathname + "?" + query); }
        // The viewer's language: the one the user chose in the app's settings (served with the state as the
        // setting "language", and followed as it changes), else the client's: ?locale= (an iOS client passes
        // its own), else the browser's, else English. Times in ?tz=, else the browser's zone.
        const clientLocale = query.get("locale") || navigator.language || "en";
        const zone = query.get("tz") || undefined;
        let locale, language, catalog, timeFormat, collator, liveWord;
        // The page's own words; {0} is a person's name. Terms are the API's words (kinds, codes, statuses) in the user's language.
        const words = {
          en: {hello: "Hello", asOf: "State as of change", live: "live", polling: "refreshes itself", once: "as loaded", balance: "Balance", balanceCaption: "Balance by currency", currency: "Currency", available: "Available", held: "Held", waiting: "Waiting", waitingCaption: "Payment requests waiting for an answer", request: "Request", amount: "Amount", time: "Time", conversations: "Conversations", conversationCaption: "Messages, payments and requests with {0}, in time order", what: "What", detail: "Detail", status: "Status", asked: "What you asked", askedCaption: "Intents and their answers", kind: "Kind", answer: "Answer", code: "Code", none: "none", paymentTo: "payment to {0}", paymentFrom: "payment from {0}", messageTo: "message to {0}", asksYou: "{0} asks you for", youAsk: "you ask {0} for", you: "you", someone: "someone", separator: " · ", semicolon: "; ", period: ".", signIn: "Sign in", signInHelp: "Enter the access token your app gave you.", token: "Access token", signInFailed: "That token was not accepted. Try again.", failed: "Could not load: {0}", terms: {sendPayment: "payment", requestPayment: "payment request", sendMessage: "message", searchForMessages: "message search", setMessageAttribute: "messages marked", ready: "ready", success: "done", failure: "didn't work", failureRequiringAppLaunch: "open the app", failureInsufficientFunds: "not enough money", failurePaymentsAmountBelowMinimum: "amount too small", failurePaymentsAmountAboveMaximum: "amount too large", failurePaymentsCurrencyUnsupported: "currency not supported", failureNoBankAccount: "no payment account", failureCredentialsUnverified: "details not verified", failureMessageServiceNotAvailable: "service unavailable", failurePaymentRequestNotPayable: "request no longer open", sent: "sent", received: "received", "awaiting confirmation": "awaiting confirmation", cancelled: "cancelled", pending: "pending", paid: "paid", declined: "declined", delivered: "delivered", sending: "sending", done: "done", inProgress: "in progress", declinedByUser: "you said no", confirmationExpired: "not confirmed in time", confirmationMismatch: "confirmation did not match", counterpartyNoAccount: "they cannot receive payments", payeeAccountChanged: "their account changed", tooManyOpenRequests: "too many requests waiting"}},
          zh: {hello: "你好", asOf: "状态截至变更", live: "实时更新", polling: "自动刷新", once: "已加载", balance: "余额", balanceCaption: "各币种余额", currency: "币种", available: "可用", held: "冻结", waiting: "待处理", waitingCaption: "等待回复的收款请求", request: "请求", amount: "金额", time: "时间", conversations: "对话", conversationCaption: "与{0}的消息、付款和请求，按时间排序", what: "内容", detail: "详情", status: "状态", asked: "你的请求", askedCaption: "意图及回复", kind: "类型", answer: "回复", code: "结果", none: "无", paymentTo: "付款给{0}", paymentFrom: "收到{0}的付款", messageTo: "发给{0}的消息", asksYou: "{0}向你请求", youAsk: "你向{0}请求", you: "你", someone: "某人", separator: "，", semicolon: "；", period: "。", signIn: "登录", signInHelp: "请输入应用提供的访问令牌。", token: "访问令牌", signInFailed: "令牌无效，请重试。", failed: "无法加载：{0}", terms: {sendPayment: "付款", requestPayment: "请求付款", sendMessage: "发消息", searchForMessages: "查找消息", setMessageAttribute: "标记消息", success: "成功", failure: "失败", failureRequiringAppLaunch: "需打开应用", failureInsufficientFunds: "余额不足", sent: "已付款", received: "已收款", "awaiting confirmation": "待确认", cancelled: "已取消", pending: "待处理", paid: "已支付", declined: "已拒绝", delivered: "已送达", sending: "发送中", done: "完成", inProgress: "处理中", ready: "就绪", failurePaymentsAmountBelowMinimum: "金额过小", failurePaymentsAmountAboveMaximum: "金额过大", failurePaymentsCurrencyUnsupported: "不支持该币种", failureNoBankAccount: "没有付款账户", failureCredentialsUnverified: "信息未验证", failureMessageServiceNotAvailable: "服务不可用", failurePaymentRequestNotPayable: "请求已关闭", declinedByUser: "你已拒绝", confirmationExpired: "未及时确认", confirmationMismatch: "确认不符", counterpartyNoAccount: "对方无法收款", payeeAccountChanged: "对方账户已变更", tooManyOpenRequests: "待回复的请求过多"}},
          ru: {hello: "Здравствуйте", asOf: "Состояние на изменение", live: "обновляется сразу", polling: "обновляется само", once: "как загружено", balance: "Баланс", balanceCaption: "Баланс по валютам", currency: "Валюта", available: "Доступно", held: "Заблокировано", waiting: "Ожидают ответа", waitingCaption: "Запросы денег, ожидающие ответа", request: "Запрос", amount: "Сумма", time: "Время", conversations: "Беседы", conversationCaption: "Собеседник: {0}. Сообщения, платежи и запросы по времени", what: "Что", detail: "Подробности", status: "Статус", asked: "Ваши запросы", askedCaption: "Намерения и ответы", kind: "Вид", answer: "Ответ", code: "Код", none: "нет", paymentTo: "Платёж. Получатель: {0}", paymentFrom: "Платёж. Отправитель: {0}", messageTo: "Сообщение. Получатель: {0}", asksYou: "{0} просит у вас", youAsk: "Ваш запрос. Плательщик: {0}", you: "вы", someone: "кто-то", separator: " · ", semicolon: "; ", period: ".", signIn: "Войти", signInHelp: "Введите токен доступа из приложения.", token: "Токен доступа", signInFailed: "Токен не принят. Попробуйте ещё раз.", failed: "Не удалось загрузить: {0}", terms: {sendPayment: "платёж", requestPayment: "запрос денег", sendMessage: "сообщение", searchForMessages: "поиск сообщений", setMessageAttribute: "отметка сообщения", success: "успешно", failure: "не удалось", failureRequiringAppLaunch: "нужно открыть приложение", failureInsufficientFunds: "недостаточно средств", sent: "отправлен", received: "получен", "awaiting confirmation": "ждёт подтверждения", cancelled: "отменён", pending: "ожидает", paid: "оплачен", declined: "отклонён", delivered: "доставлено", sending: "отправляется", done: "готово", inProgress: "выполняется", ready: "готово", failurePaymentsAmountBelowMinimum: "слишком маленькая сумма", failurePaymentsAmountAboveMaximum: "слишком большая сумма", failurePaymentsCurrencyUnsupported: "валюта не поддерживается", failureNoBankAccount: "нет платёжного счёта", failureCredentialsUnverified: "данные не подтверждены", failureMessageServiceNotAvailable: "сервис недоступен", failurePaymentRequestNotPayable: "запрос уже закрыт", declinedByUser: "вы отказались", confirmationExpired: "не подтверждено вовремя", confirmationMismatch: "подтверждение не совпало", counterpartyNoAccount: "получатель не принимает платежи", payeeAccountChanged: "счёт получателя изменился", tooManyOpenRequests: "слишком много запросов ждут ответа"}},
        };
        // Lookups by names that come from outside (the locale, ids, statuses) read own properties
        // only: "constructor" or "__proto__" is a name like any other, not the object's machinery.
        function own(object, key){ return Object.hasOwn(object, key) ? object[key] : undefined; }
        function dictionary(){ return Object.create(null); }
        function t(key, name){ return (own(language, key) ?? words.en[key]).replace("{0}", () => String(name ?? "")); }
        // A code, status or kind in words: the language's, else English; never the raw code.
        function term(s){ return own(language.terms, s) ?? own(words.en.terms, s) ?? ""; }
        // The assistant's sentences by key (the server's message catalogs), said in the viewer's language
        // from the answer's key and arguments, whatever language the request was in.
        const catalogs = /*CATALOGS*/{};
        function list(items, type){ try { return new Intl.ListFormat(locale, {type}).format(items.map(String)); } catch { return items.join(", "); } }
        function argument(value){
          if (value == null || typeof value !== "object") return "";
          if (Object.hasOwn(value, "text")) return String(value.text);
          if (Object.hasOwn(value, "amount")) return money(value.amount.amount, value.amount.currency);
          if (Object.hasOwn(value, "number")) { try { return new Intl.NumberFormat(locale).format(value.number); } catch { return String(value.number); } }
          if (Object.hasOwn(value, "names")) return list(value.names, "conjunction");
          if (Object.hasOwn(value, "choices")) return list(value.choices, "disjunction");
          return "";
        }
        function say(key, args, fallback){
          const sentence = (key && own(catalog, key)) ?? (key && own(catalogs.en, key));
          if (sentence == null) return fallback ?? "";
          return sentence.replace(/\{(\w+)\}/g, (_, name) => argument(own(args || {}, name)));
        }
        // Everything said from here on is said in `tag`: the page's words, the assistant's sentences, times, amounts, order.
        function useLocale(tag){
          locale = tag;
          document.documentElement.lang = locale;
          const primary = locale.split(/[-_]/)[0].toLowerCase();
          language = own(words, primary) || words.en;
          catalog = own(catalogs, primary) || catalogs.en;
          try { timeFormat = new Intl.DateTimeFormat(locale, {dateStyle: "medium", timeStyle: "short", timeZone: zone}); } catch { timeFormat = new Intl.DateTimeFormat("en", {dateStyle: "medium", timeStyle: "short"}); }
          try { collator = new Intl.Collator(locale); } catch { collator = new Intl.Collator("en"); }
          for (const element of document.querySelectorAll("[data-t]")) element.textContent = t(element.dataset.t);
          if (liveWord) showLive(liveWord);
        }
        // How the page follows changes (live, polling, as loaded), in the viewer's words.
        function showLive(key){ liveWord = key; document.getElementById("live").textContent = t(key); }
        useLocale(clientLocale);
        const state = {balances: dictionary(), payments: dictionary(), paymentRequests: dictionary(), messages: dictionary(), intents: dictionary(), contacts: dictionary(), settings: dictionary()};
        let cursor = 0;
        const plural = {balance:"balances", payment:"payments", paymentRequest:"paymentRequests", message:"messages", intent:"intents", contact:"contacts", setting:"settings"};
        // The user's chosen language (a BCP 47 tag the server checked), else the client's.
        function chosenLocale(){ const tag = state.settings.language?.locale; return typeof tag === "string" && tag ? tag : clientLocale; }
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
            add(key, name, {at: p.at, what: t(p.direction === "received" ? "paymentFrom" : "paymentTo", name), detail: [money(p.amount), p.note, term(p.reason)].filter(Boolean).join(t("separator")), status: p.status});
          }
          for (const r of Object.values(state.paymentRequests)) {
            const [key, name] = person(r);
            add(key, name, {at: r.at, what: requestWords(r, name), detail: [money(r.amount), r.note].filter(Boolean).join(t("separator")), status: r.status});
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
          if (chosenLocale() !== locale) useLocale(chosenLocale());
          document.getElementById("hello").textContent = t("hello");
          document.getElementById("as-of").textContent = t("asOf");
          document.getElementById("cursor").textContent = cursor;
          rows("balances", Object.values(state.balances), b => [b.currency, money(b.available, b.currency), money(b.held, b.currency)]);
          const pending = Object.values(state.paymentRequests).filter(r => r.status === "pending");
          rows("pending", pending, r => [requestWords(r, person(r)[1]), money(r.amount), when(r.at)], 2);
          conversations();
          const intents = Object.values(state.intents).sort((a, b) => String(a.updatedAt).localeCompare(String(b.updatedAt)));
          rows("intents", intents, i => [when(i.updatedAt), term(i.kind), say(i.messageKey, i.messageArguments, i.message), term(i.code)], 0);
        }
        async function api(path){
          const response = await fetch("/api/users/" + encodeURIComponent(user) + path, {headers: {Authorization: "Bearer " + token}});
          if (response.status === 401 || response.status === 403) throw new SignInNeeded();
          if (!response.ok) throw new Error(String(response.status));
          return response.json();
        }
        async function load(){
          const snapshot = await api("/state");
          for (const key of Object.values(plural)) for (const item of snapshot[key] || []) state[key][item.id ?? item.currency] = item;
          cursor = snapshot.cursor;
          showLive("once");
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
        // Server-Sent Events, read with fetch so the token goes in the Authorization header, never
        // in a URL (EventSource cannot send headers); reconnects from the cursor when the server ends
        // the stream. The long poll when the browser cannot stream or the stream cannot open.
        async function live(){
          if (!window.ReadableStream || !window.TextDecoderStream) return poll();
          let opened = false;
          while (true) {
            let response;
            try { response = await fetch("/api/users/" + encodeURIComponent(user) + "/events?since=" + cursor, {headers: {Authorization: "Bearer " + token, Accept: "text/event-stream"}}); }
            catch { response = null; }
            if (!response || !response.ok || !response.body) {
              if (!opened) return poll();
              await new Promise(r => setTimeout(r, 2000));
              continue;
            }
            if (!opened) { opened = true; document.body.setAttribute("data-live", "events"); showLive("live"); }
            const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
            let buffer = "", busy = false;
            try {
              while (true) {
                const {value, done} = await reader.read();
                if (done) break;
                buffer += value.replace(/\r\n?/g, "\n");
                let end;
                while ((end = buffer.indexOf("\n\n")) >= 0) {
                  const lines = buffer.slice(0, end).split("\n");
                  buffer = buffer.slice(end + 2);
                  const type = lines.find(l => l.startsWith("event:"))?.slice(6).trim();
                  const data = lines.filter(l => l.startsWith("data:")).map(l => l.slice(5).trimStart()).join("\n");
                  if (type === "changes") apply(JSON.parse(data));
                  if (type === "busy") busy = true;
                }
              }
            } catch { /* the connection dropped: reconnect from the cursor */ }
            if (busy) return poll();
            await new Promise(r => setTimeout(r, 1000));
          }
        }
        async function poll(){
          document.body.setAttribute("data-live", "poll");
          showLive("polling");
          while (true) {
            try { apply(await api("/changes?since=" + cursor + "&wait=" + wait)); }
            catch (error) { document.getElementById("cursor").textContent = "error: " + error.message; await new Promise(r => setTimeout(r, 2000)); }
          }
        }
        // Without a token, or with one the server refuses: a sign-in form, not the API's error.
        class SignInNeeded extends Error {}
        function signIn(failed){
          document.getElementById("hello").textContent = t("signIn");
          document.querySelector("main").hidden = true;
          document.getElementById("sign-in-help").textContent = t("signInHelp");
          document.getElementById("token-label").textContent = t("token");
          document.getElementById("sign-in-button").textContent = t("signIn");
          const failure = document.getElementById("sign-in-failed");
          failure.textContent = t("signInFailed"); failure.hidden = !failed;
          const form = document.getElementById("sign-in");
          form.hidden = false;
          document.body.setAttribute("data-signed-in", "false");
          form.onsubmit = event => {
            event.preventDefault();
            token = document.getElementById("token").value;
            sessionStorage.setItem("token:" + user, token);
            form.hidden = true; document.querySelector("main").hidden = false;
            start();
          };
        }
        function start(){
          if (!token) return signIn(false);
          load().catch(error => {
            if (error instanceof SignInNeeded) { sessionStorage.removeItem("token:" + user); token = null; return signIn(true); }
            document.body.insertAdjacentHTML("beforeend", "<p id=error role=alert>" + esc(t("failed", error.message)) + "</p>");
          });
        }
        start();
        </script>
        </body></html>
        """#
}
