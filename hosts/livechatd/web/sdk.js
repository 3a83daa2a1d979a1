/*! livechat storefront SDK 1.1.0 -- served by livechatd at /sdk.js.
 *
 * Embed:  <script src="https://CHAT_HOST/sdk.js" data-app-id="APP_ID" async></script>
 * Use:    window.LiveChat = window.LiveChat || []; LiveChat.push(['chat:open']);
 *
 * The global LiveChat has push, on, off, is, get and version. push returns
 * nothing and never throws: a rejected command only logs console.warn.
 * Commands, is/get keys and the 22 events are documented in docs/sdk.md.
 *
 * The RULES section mirrors lib/sdk/command_rules.cc line for line; the
 * shared vectors (tests/vectors/sdk_commands.json) hold both to the same
 * verdicts. No framework, no build step.
 */
(function (window, document) {
  'use strict';

  var VERSION = '1.1.0';
  var PREFIX = '[LiveChat] ';

  function warn(message) {
    try {
      if (window.console && window.console.warn) window.console.warn(PREFIX + message);
    } catch (e) { /* a console that throws must not break the page */ }
  }

  // ======================= RULES (mirror of lib/sdk/command_rules.cc) =======================

  var LIMITS = {
    messageTextMax: 5000, commerceObjectMax: 8192, eventPropertiesMax: 2048,
    messagesPerWindow: 15, typingPerWindow: 30, windowMillis: 60000
  };
  var NAME_MAX = 255, VALUE_MAX = 1000, ATTRIBUTES_MAX = 50, PRECHAT_FIELDS_MAX = 20, ID_MAX = 64,
      EMAIL_MAX = 254, PHONE_MAX = 32, EVENT_NAME_MAX = 100, REASON_MAX = 500, URL_MAX = 2048, LOCALE_MAX = 35;

  var encoder = typeof TextEncoder !== 'undefined' ? new TextEncoder() : null;
  function utf8Length(s) {
    if (encoder) return encoder.encode(s).length;
    return unescape(encodeURIComponent(s)).length;
  }
  function typeName(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'array';
    var t = typeof v;
    return t === 'boolean' || t === 'number' || t === 'string' ? t : 'object';
  }
  function isObject(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
  function has(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
  function codePoints(s) {
    var n = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        var d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
      }
      n++;
    }
    return n;
  }
  function trimAscii(s) { return s.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, ''); }
  function isInteger(v) { return typeof v === 'number' && isFinite(v) && Math.floor(v) === v; }
  function jsonSize(v) { return utf8Length(JSON.stringify(v)); }

  function makeCtx(command) {
    return { command: command, fail: function (what, problem) { return command + ': ' + what + ' ' + problem; } };
  }

  function string(c, v, what, max, allowEmpty) {
    if (typeof v !== 'string') return c.fail(what, 'must be a string (got ' + typeName(v) + ')');
    if (!allowEmpty && trimAscii(v) === '') return c.fail(what, 'must not be empty');
    var n = codePoints(v);
    if (n > max) return c.fail(what, 'must be at most ' + max + ' characters (got ' + n + ')');
    return null;
  }
  function hasSpaceOrControl(s) {
    for (var i = 0; i < s.length; i++) {
      var ch = s.charCodeAt(i);
      if (ch <= 0x20 || ch === 0x7f) return true;
    }
    return false;
  }
  function email(c, v, what) {
    var w = string(c, v, what, EMAIL_MAX, false);
    if (w) return w;
    var at = v.indexOf('@');
    var ok = at > 0 && v.indexOf('@', at + 1) === -1 && !hasSpaceOrControl(v);
    if (ok) {
      var domain = v.slice(at + 1);
      var dot = domain.indexOf('.');
      ok = dot > 0 && domain.charAt(domain.length - 1) !== '.';
    }
    if (!ok) return c.fail(what, 'must be an email address like name@example.com');
    return null;
  }
  function phone(c, v, what) {
    var w = string(c, v, what, PHONE_MAX, false);
    if (w) return w;
    var digits = 0, ok = true;
    for (var i = 0; i < v.length; i++) {
      var ch = v.charAt(i);
      if (ch >= '0' && ch <= '9') digits++;
      else if (ch === '+' && i === 0) continue;
      else if (ch !== ' ' && ch !== '-' && ch !== '(' && ch !== ')' && ch !== '.') ok = false;
    }
    if (!ok || digits < 3) return c.fail(what, 'must be a phone number: digits, spaces, + - ( ) . and at least 3 digits');
    return null;
  }
  function identifier(c, v, what) {
    if (typeof v !== 'string') return c.fail(what, 'must be a string (got ' + typeName(v) + ')');
    if (v.length === 0 || utf8Length(v) > ID_MAX) return c.fail(what, 'must be 1 to ' + ID_MAX + ' characters');
    if (!/^[A-Za-z0-9_.:-]*$/.test(v)) return c.fail(what, 'may only contain letters, digits, _ - . :');
    return null;
  }
  function stringOrIntegerId(c, v, what) {
    if (typeof v === 'number') {
      if (!isInteger(v) || v < 0) return c.fail(what, 'must be a whole number of 0 or more, or a string');
      return null;
    }
    if (typeof v !== 'string') return c.fail(what, 'must be a string or a number (got ' + typeName(v) + ')');
    return string(c, v, what, ID_MAX, false);
  }
  function nonNegativeNumber(c, v, what) {
    if (typeof v !== 'number') return c.fail(what, 'must be a number (got ' + typeName(v) + ')');
    if (v < 0) return c.fail(what, 'must be 0 or more');
    return null;
  }
  function currency(c, v, what) {
    if (typeof v !== 'string') return c.fail(what, 'must be a string (got ' + typeName(v) + ')');
    if (!/^[A-Z]{3}$/.test(v)) return c.fail(what, 'must be a three-letter ISO 4217 code like "USD"');
    return null;
  }
  function fieldName(c, s, what) {
    var ok = s.length > 0 && utf8Length(s) <= ID_MAX && /^[A-Za-z][A-Za-z0-9_]*$/.test(s);
    if (!ok) return c.fail(what, 'must start with a letter and hold only letters, digits and _ (1 to ' + ID_MAX + ' characters)');
    return null;
  }
  function prechatValue(c, field, v, what) {
    if (field === 'email') return email(c, v, what);
    if (field === 'phone') return phone(c, v, what);
    return string(c, v, what, VALUE_MAX, true);
  }
  function object(c, v, what) {
    if (!isObject(v)) return c.fail(what, 'must be an object (got ' + typeName(v) + ')');
    return null;
  }
  function sizeAtMost(c, v, what, max) {
    var n = jsonSize(v);
    if (n > max) return c.fail(what, 'must be at most ' + max + ' bytes as JSON (got ' + n + ')');
    return null;
  }
  function stringMap(c, v, what) {
    var w = object(c, v, what);
    if (w) return w;
    var keys = Object.keys(v);
    if (keys.length === 0) return c.fail(what, 'must have at least one key');
    if (keys.length > ATTRIBUTES_MAX) return c.fail(what, 'must have at most ' + ATTRIBUTES_MAX + ' keys (got ' + keys.length + ')');
    for (var i = 0; i < keys.length; i++) {
      var name = keys[i];
      if (trimAscii(name) === '') return c.fail(what, 'keys must not be empty');
      if (codePoints(name) > NAME_MAX) return c.fail(what, 'keys must be at most ' + NAME_MAX + ' characters (got ' + codePoints(name) + ')');
      w = string(c, v[name], what + ' key "' + name + '"', VALUE_MAX, true);
      if (w) return w;
    }
    return null;
  }
  // rules: [[name, fn(c, value, what)], ...]; absent members pass.
  function members(c, obj, what, rules) {
    for (var i = 0; i < rules.length; i++) {
      if (!has(obj, rules[i][0])) continue;
      var w = rules[i][1](c, obj[rules[i][0]], what + '.' + rules[i][0]);
      if (w) return w;
    }
    return null;
  }
  function required(c, obj, what, name) {
    if (!has(obj, name)) return c.fail(what, 'must have "' + name + '"');
    return null;
  }
  function stringUpTo(max, allowEmpty) {
    return function (c, v, what) { return string(c, v, what, max, allowEmpty); };
  }

  function commerce(c, v, what, req, rules, more) {
    if (v === null) return null;
    var w = object(c, v, what) || required(c, v, what, req) || members(c, v, what, rules) || (more ? more() : null);
    if (w) return w;
    return sizeAtMost(c, v, what, LIMITS.commerceObjectMax);
  }
  function cartItems(c, items) {
    if (!Array.isArray(items)) return c.fail('cart.items', 'must be an array (got ' + typeName(items) + ')');
    for (var i = 0; i < items.length; i++) {
      var what = 'cart.items[' + i + ']', it = items[i];
      var w = object(c, it, what) || required(c, it, what, 'productId') || required(c, it, what, 'quantity');
      if (w) return w;
      if (!isInteger(it.quantity) || it.quantity < 1) return c.fail(what + '.quantity', 'must be a whole number of 1 or more');
      w = members(c, it, what, [['productId', stringOrIntegerId], ['variantId', stringOrIntegerId],
                                ['price', nonNegativeNumber], ['title', stringUpTo(NAME_MAX, false)]]);
      if (w) return w;
    }
    return null;
  }
  function locale(c, v) {
    if (typeof v !== 'string') return c.fail('locale', 'must be a string (got ' + typeName(v) + ')');
    var ok = utf8Length(v) <= LOCALE_MAX && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(v);
    if (!ok) return c.fail('locale', 'must be a language tag like "en" or "pt-BR"');
    return null;
  }
  var IDENTIFY_KEYS = ['id', 'email', 'name', 'firstName', 'lastName', 'phone'];
  function identify(c, a) {
    var u = a[0];
    var w = object(c, u, 'user');
    if (w) return w;
    var keys = Object.keys(u);
    if (keys.length === 0) return c.fail('user', 'must have at least one of id, email, name, firstName, lastName, phone');
    for (var i = 0; i < keys.length; i++) {
      if (IDENTIFY_KEYS.indexOf(keys[i]) < 0)
        return c.fail('user', 'has unknown key "' + keys[i] + '" (allowed: id, email, name, firstName, lastName, ' +
                              'phone; use user:attributes for others)');
    }
    return members(c, u, 'user', [['id', stringOrIntegerId], ['email', email], ['name', stringUpTo(NAME_MAX, false)],
                                  ['firstName', stringUpTo(NAME_MAX, false)], ['lastName', stringUpTo(NAME_MAX, false)],
                                  ['phone', phone]]);
  }
  function prechatSubmit(c, a) {
    var f = a[0];
    var w = object(c, f, 'fields');
    if (w) return w;
    var keys = Object.keys(f);
    if (keys.length === 0) return c.fail('fields', 'must have at least one field');
    if (keys.length > PRECHAT_FIELDS_MAX) return c.fail('fields', 'must have at most ' + PRECHAT_FIELDS_MAX + ' fields (got ' + keys.length + ')');
    for (var i = 0; i < keys.length; i++) {
      w = fieldName(c, keys[i], 'field names') || prechatValue(c, keys[i], f[keys[i]], 'fields.' + keys[i]);
      if (w) return w;
    }
    return null;
  }
  function none() { return null; }
  function freeObject(what) {
    return function (c, a) { return object(c, a[0], what) || sizeAtMost(c, a[0], what, LIMITS.commerceObjectMax); };
  }

  // name: [minArgs, maxArgs, usage, check]
  var RULES = {
    'chat:open': [0, 0, '', none], 'chat:close': [0, 0, '', none], 'chat:toggle': [0, 0, '', none],
    'chat:show': [0, 0, '', none], 'chat:hide': [0, 0, '', none],
    'launcher:show': [0, 0, '', none], 'launcher:hide': [0, 0, '', none],
    'message:send': [1, 1, 'text', function (c, a) { return string(c, a[0], 'text', LIMITS.messageTextMax, false); }],
    'typing:set': [1, 1, 'active', function (c, a) {
      return typeof a[0] === 'boolean' ? null : c.fail('active', 'must be true or false (got ' + typeName(a[0]) + ')');
    }],
    'identify': [1, 1, 'user', identify],
    'logout': [0, 0, '', none], 'session:reset': [0, 0, '', none],
    'escalate': [0, 1, '[reason]', function (c, a) { return a.length === 0 ? null : string(c, a[0], 'reason', REASON_MAX, false); }],
    'trigger:run': [1, 1, 'triggerId', function (c, a) { return identifier(c, a[0], 'triggerId'); }],
    'article:show': [1, 1, 'articleId', function (c, a) { return identifier(c, a[0], 'articleId'); }],
    'prechat:submit': [1, 1, 'fields', prechatSubmit],
    'prechat:skip': [0, 0, '', none],
    'prechat:field': [2, 2, 'name, value', function (c, a) {
      if (typeof a[0] !== 'string') return c.fail('name', 'must be a string (got ' + typeName(a[0]) + ')');
      return fieldName(c, a[0], 'name') || prechatValue(c, a[0], a[1], 'value');
    }],
    'event:track': [1, 2, 'name[, properties]', function (c, a) {
      var w = string(c, a[0], 'name', EVENT_NAME_MAX, false);
      if (w || a.length < 2) return w;
      return object(c, a[1], 'properties') || sizeAtMost(c, a[1], 'properties', LIMITS.eventPropertiesMax);
    }],
    'message:text': [1, 1, 'text', function (c, a) { return string(c, a[0], 'text', LIMITS.messageTextMax, true); }],
    'user:email': [1, 1, 'email', function (c, a) { return email(c, a[0], 'email'); }],
    'user:name': [1, 1, 'name', function (c, a) { return string(c, a[0], 'name', NAME_MAX, false); }],
    'user:phone': [1, 1, 'phone', function (c, a) { return phone(c, a[0], 'phone'); }],
    'user:attributes': [1, 1, 'attributes', function (c, a) { return stringMap(c, a[0], 'attributes'); }],
    'user:context': [1, 1, 'context', freeObject('context')],
    'shop:data': [1, 1, 'data', freeObject('data')],
    'conversation:attributes': [1, 1, 'attributes', function (c, a) { return stringMap(c, a[0], 'attributes'); }],
    'product': [1, 1, 'product', function (c, a) {
      return commerce(c, a[0], 'product', 'id', [['id', stringOrIntegerId], ['variantId', stringOrIntegerId],
        ['title', stringUpTo(NAME_MAX, false)], ['price', nonNegativeNumber], ['currency', currency],
        ['url', stringUpTo(URL_MAX, false)]]);
    }],
    'cart': [1, 1, 'cart', function (c, a) {
      var cart = a[0];
      return commerce(c, cart, 'cart', 'items', [['total', nonNegativeNumber], ['currency', currency]],
                      function () { return cartItems(c, cart.items); });
    }],
    'order': [1, 1, 'order', function (c, a) {
      return commerce(c, a[0], 'order', 'id', [['id', stringOrIntegerId], ['total', nonNegativeNumber],
        ['currency', currency], ['status', stringUpTo(ID_MAX, false)]]);
    }],
    'locale': [1, 1, 'locale', function (c, a) { return locale(c, a[0]); }]
  };

  // JSON values only: what the rules (and the server) can see.
  function isJsonValue(v, depth) {
    if (depth > 64) return false;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
    if (typeof v === 'number') return isFinite(v);
    if (Array.isArray(v)) {
      for (var i = 0; i < v.length; i++) if (!isJsonValue(v[i], depth + 1)) return false;
      return true;
    }
    if (typeof v === 'object') {
      var proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return false;
      for (var k in v) if (has(v, k) && !isJsonValue(v[k], depth + 1)) return false;
      return true;
    }
    return false;
  }

  // The warning for a command, or null when it is acceptable. Shape only.
  function check(command, args) {
    if (typeof command !== 'string') return 'a command name must be a string (got ' + typeName(command) + ')';
    if (!Array.isArray(args)) return command + ': arguments must be a JSON array';
    if (!has(RULES, command)) return 'unknown command "' + command + '" (see docs/sdk.md for the list)';
    if (!isJsonValue(args, 0)) return command + ': arguments must be JSON values (no functions, undefined, NaN or Infinity)';
    var r = RULES[command], n = args.length;
    if (n < r[0] || n > r[1]) {
      if (r[1] === 0) return command + ': takes no arguments (got ' + n + ')';
      if (r[0] === r[1]) return command + ': expects ' + r[0] + ' argument' + (r[0] === 1 ? '' : 's') + ' (' + r[2] + '), got ' + n;
      return command + ': expects ' + r[0] + ' to ' + r[1] + ' arguments (' + r[2] + '), got ' + n;
    }
    return r[3](makeCtx(command), args);
  }

  // Fixed windows per session, as CommandValidator::Validate.
  function createLimiter(now) {
    var sessions = {};
    function validate(sessionId, command, args) {
      var w = check(command, args);
      if (w) return w;
      var isMessage = command === 'message:send';
      if (!isMessage && command !== 'typing:set') return null;
      var t = now(), win = LIMITS.windowMillis;
      var s = sessions[sessionId] || (sessions[sessionId] = { messages: { start: 0, count: 0 }, typing: { start: 0, count: 0 } });
      var wd = isMessage ? s.messages : s.typing;
      var limit = isMessage ? LIMITS.messagesPerWindow : LIMITS.typingPerWindow;
      if (wd.count === 0 || t - wd.start >= win) { wd.start = t; wd.count = 0; }
      if (wd.count >= limit) {
        var retry = Math.ceil((wd.start + win - t) / 1000);
        return command + ': rate limit of ' + limit + ' ' + (isMessage ? 'messages' : 'typing calls') + ' per ' +
               (win === 60000 ? 'minute' : win + ' ms') + ' reached; try again in ' + retry + ' s';
      }
      wd.count++;
      return null;
    }
    // A call the server refused after all gives its place back, unless the
    // window it was counted in has closed: a refusal never counts. `at`: now()
    // read when (or just after) the call was counted.
    validate.refund = function (sessionId, command, at) {
      var s = sessions[sessionId];
      var wd = !s ? null : command === 'message:send' ? s.messages : command === 'typing:set' ? s.typing : null;
      if (wd && wd.count > 0 && wd.start <= at && at - wd.start < LIMITS.windowMillis) wd.count--;
    };
    return validate;
  }

  // The rules alone, for shops and tests that check commands without a widget.
  var Rules = { version: VERSION, commands: Object.keys(RULES), check: check, createLimiter: createLimiter };

  // ======================= THE SDK =======================

  var EVENTS = [
    // lifecycle
    'ready', 'chat:opened', 'chat:closed', 'widget:shown', 'widget:hidden', 'session:started', 'session:ended',
    // messages
    'message:sent', 'message:received', 'unread:changed',
    // conversation
    'conversation:started', 'conversation:resolved', 'conversation:reopened', 'conversation:assigned',
    'conversation:escalated',
    // pre-chat and lead capture
    'prechat:shown', 'prechat:submitted', 'prechat:skipped', 'lead:captured',
    // presence and typing
    'agent:typing', 'agent:idle', 'visitor:typing'
  ];
  var IS_KEYS = ['chat:open', 'widget:visible', 'launcher:visible', 'session:active', 'conversation:active',
                 'prechat:required', 'prechat:completed', 'agent:available', 'agent:typing'];
  var GET_KEYS = ['message:text', 'conversation:id', 'session:id', 'unread:count', 'prechat:config', 'prechat:fields',
                  'product', 'cart', 'order', 'locale', 'user'];
  var SERVER_COMMANDS = ['message:send', 'typing:set', 'identify', 'logout', 'session:reset', 'escalate', 'trigger:run',
                         'article:show', 'prechat:submit', 'prechat:skip', 'event:track', 'user:email', 'user:name',
                         'user:phone', 'user:attributes', 'user:context', 'shop:data', 'conversation:attributes',
                         'product', 'cart', 'order', 'locale'];
  var AGENT_RECENT_MS = 10 * 60 * 1000;

  function findScript() {
    var s = document.currentScript;
    if (s && s.getAttribute('data-app-id')) return s;
    var all = document.querySelectorAll('script[data-app-id]');
    for (var i = 0; i < all.length; i++) if (/\/sdk\.js(\?|$)/.test(all[i].src)) return all[i];
    return s;
  }
  var script = findScript();
  var settings = window.LiveChatSettings || {};
  var appId = settings.appId || (script && script.getAttribute('data-app-id')) || '';
  var baseUrl = settings.baseUrl || (script && script.src ? script.src.replace(/\/sdk\.js(\?.*)?$/, '') : '');
  var prechatAttr = settings.prechat || (script && script.getAttribute('data-prechat')) || '';
  var prechatFields = (Array.isArray(prechatAttr) ? prechatAttr : String(prechatAttr).split(','))
      .map(function (f) { return trimAscii(String(f)); }).filter(function (f) { return /^[A-Za-z][A-Za-z0-9_]*$/.test(f); });
  var storageKey = 'livechat:' + appId + ':session';

  var state = {
    session: null, open: false, visible: true, launcherVisible: true, cursor: 0, seen: {}, unread: 0,
    conversationId: null, status: null, assigned: false, agentTyping: false, lastAgentAt: 0, view: null,
    prechat: prechatFields.length ? 'pending' : 'none', prechatPrefill: {},
    product: null, cart: null, order: null, locale: null, user: {}, polling: false, pollGen: 0
  };
  var handlers = {};
  var validate = createLimiter(function () { return Date.now(); });
  var chain = Promise.resolve();
  var ui = null;

  function emit(name, payload) {
    var list = (handlers[name] || []).slice();
    for (var i = 0; i < list.length; i++) {
      try { list[i](payload); } catch (e) { warn('a handler of "' + name + '" threw: ' + (e && e.message)); }
    }
  }

  // ---------------- network ----------------

  function request(method, path, body) {
    var headers = { 'X-App-Id': appId };
    if (state.session) headers['X-Session-Token'] = state.session.token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(baseUrl + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (res) {
        return res.text().then(function (text) {
          var json = null;
          try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
          return { status: res.status, json: json };
        });
      });
  }
  // An attachment goes as the raw bytes (no multipart): the server checks
  // its size and type (docs/sdk.md, "Attachments").
  var ATTACHMENT_MAX = 10 * 1024 * 1024;
  function sendFile(file) {
    if (!file) return;
    if (file.size > ATTACHMENT_MAX) { warn('attachments are limited to 10 MiB; ' + file.name + ' is larger'); return; }
    chain = chain.then(ensureSession).then(function () {
      var headers = { 'X-App-Id': appId, 'X-Session-Token': state.session.token, 'Content-Type': file.type || 'application/octet-stream' };
      return fetch(baseUrl + '/storefront/files?name=' + encodeURIComponent(file.name), { method: 'POST', headers: headers, body: file })
        .then(function (res) {
          return res.text().then(function (text) {
            var json = null;
            try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
            return { status: res.status, json: json };
          });
        });
    }).then(function (r) {
      if (r.status !== 201) { warn('the file was not sent: ' + errorMessage(r)); return; }
      addMessage(r.json.data.message, true);
    }).catch(function (e) { warn('the file was not sent: ' + (e && e.message)); });
  }
  // A file URL from the server is root-relative unless it runs with --public-url.
  function fileHref(url) { return /^https?:\/\//.test(url) ? url : baseUrl + url; }

  function errorMessage(r) {
    return r.json && r.json.error ? r.json.error.message : 'the chat server answered ' + r.status;
  }

  function saveSession() {
    try { window.localStorage.setItem(storageKey, JSON.stringify(state.session)); } catch (e) { /* private mode */ }
  }
  function loadSession() {
    try { return JSON.parse(window.localStorage.getItem(storageKey) || 'null'); } catch (e) { return null; }
  }

  function adopt(session) {
    state.session = { sessionId: session.sessionId, token: session.token };
    state.cursor = 0;
    state.view = null;
    state.seen = {};
    state.conversationId = null;
    state.status = null;
    saveSession();
    emit('session:started', { sessionId: session.sessionId });
  }

  function startSession() {
    return request('POST', '/storefront/sessions').then(function (r) {
      if (r.status !== 201) throw new Error(errorMessage(r));
      adopt(r.json.data);
    });
  }

  function ensureSession() {
    if (state.session) return Promise.resolve();
    var saved = loadSession();
    if (saved && saved.token) {
      state.session = saved;
      return request('GET', '/storefront/session').then(function (r) {
        if (r.status === 200) {
          state.conversationId = r.json.data.conversationId;
          emit('session:started', { sessionId: saved.sessionId, resumed: true });
          return;
        }
        state.session = null;
        return startSession();
      });
    }
    return startSession();
  }

  function recordPageView() {
    chain = chain.then(ensureSession).then(function () {
      return request('POST', '/storefront/pageviews', { url: String(window.location.href).slice(0, URL_MAX), title: String(document.title || '').slice(0, NAME_MAX) });
    }).then(function (r) {
      if (r.status !== 201) warn('page view not recorded: ' + errorMessage(r));
    }, function (e) { warn('page view not recorded: ' + (e && e.message)); });
  }

  // ---------------- long-poll ----------------

  function poll(gen) {
    if (gen !== state.pollGen || !state.session) return;
    // `view`: what the last answer showed, so a change made between two polls answers at once.
    var q = '/storefront/updates?after=' + state.cursor + '&wait=25' +
            (state.view ? '&view=' + state.view : '&typing=' + (state.agentTyping ? 1 : 0));
    request('GET', q).then(function (r) {
      if (gen !== state.pollGen) return;
      if (r.status === 401) { state.session = null; chain = chain.then(ensureSession).then(restartPolling); return; }
      if (r.status !== 200) { setTimeout(function () { poll(gen); }, 3000); return; }
      applyUpdates(r.json.data);
      setTimeout(function () { poll(gen); }, r.json.data.retryAfterMs || 0);
    }, function () {
      setTimeout(function () { poll(gen); }, 3000);
    });
  }
  function restartPolling() {
    state.pollGen++;
    poll(state.pollGen);
  }

  function applyUpdates(d) {
    for (var i = 0; i < d.messages.length; i++) addMessage(d.messages[i].message, false);
    state.cursor = Math.max(state.cursor, d.cursor);
    state.view = d.view;
    var typing = d.typing.length > 0;
    if (typing !== state.agentTyping) {
      state.agentTyping = typing;
      if (typing) state.lastAgentAt = Date.now();
      renderTyping();
      emit(typing ? 'agent:typing' : 'agent:idle', typing ? { memberId: d.typing[0].memberId } : {});
    }
    var c = d.conversation;
    if (c) {
      if (typeof state.conversationId !== 'string') state.conversationId = c.id;
      if (state.status && c.status !== state.status)
        emit(c.status === 'resolved' ? 'conversation:resolved' : 'conversation:reopened', { conversationId: c.id });
      state.status = c.status;
      if (c.assigned && !state.assigned) emit('conversation:assigned', { conversationId: c.id });
      state.assigned = c.assigned;
    }
  }

  function addMessage(m, own) {
    if (state.seen[m.id]) return;
    state.seen[m.id] = true;
    renderMessage(m);
    if (m.senderType === 'customer') return;
    if (m.senderType === 'agent' || m.senderType === 'bot') state.lastAgentAt = Date.now();
    if (own) return;
    emit('message:received', { id: m.id, text: m.text, senderType: m.senderType, senderName: m.senderName, createdAt: m.createdAt });
    if (!state.open) {
      state.unread++;
      renderUnread();
      emit('unread:changed', { count: state.unread });
    }
  }

  // ---------------- commands ----------------

  // `counted`: the limiter's session key and time when push counted the call.
  function send(command, args, counted) {
    chain = chain.then(ensureSession).then(function () {
      return request('POST', '/storefront/commands', { command: command, args: args });
    }).then(function (r) {
      if (r.status !== 200) {
        validate.refund(counted.key, command, counted.at);
        warn(errorMessage(r));
        return;
      }
      afterServer(command, args, r.json.data);
    }, function (e) { warn(command + ': the chat server could not be reached (' + (e && e.message) + ')'); });
  }

  function afterServer(command, args, data) {
    if (command === 'message:send') {
      var first = !state.conversationId;
      addMessage(data.message, true);
      emit('message:sent', { id: data.message.id, text: data.message.text, createdAt: data.message.createdAt });
      if (first) {
        state.conversationId = true;  // the id arrives with the next update
        emit('conversation:started', {});
        restartPolling();
      }
    } else if (command === 'logout' || command === 'session:reset') {
      var old = state.session && state.session.sessionId;
      emit('session:ended', { sessionId: old, reason: command });
      clearConversation();
      adopt(data.session);
      state.pollGen++;  // the ended session's poll stops; the new one polls after its first message
    } else if (command === 'escalate') {
      emit('conversation:escalated', { reason: args[0] || null });
    } else if (command === 'identify' || command === 'user:email' || command === 'user:phone' || command === 'user:name') {
      if (command === 'identify' ? args[0].email || args[0].phone : command !== 'user:name')
        emit('lead:captured', { customerId: data.customerId, via: command });
    } else if (command === 'prechat:submit') {
      var f = args[0];
      if (f.email || f.phone) emit('lead:captured', { customerId: null, via: command });
    }
  }

  function clearConversation() {
    state.unread = 0;
    state.conversationId = null;
    state.status = null;
    state.assigned = false;
    state.user = {};
    state.prechat = prechatFields.length ? 'pending' : 'none';
    if (ui) ui.list.innerHTML = '';
    renderUnread();
  }

  function applyLocal(command, args) {
    switch (command) {
      case 'chat:open': setOpen(true); break;
      case 'chat:close': setOpen(false); break;
      case 'chat:toggle': setOpen(!state.open); break;
      case 'chat:show': setVisible(true); break;
      case 'chat:hide': setVisible(false); break;
      case 'launcher:show': state.launcherVisible = true; render(); break;
      case 'launcher:hide': state.launcherVisible = false; render(); break;
      case 'message:text': if (ui) ui.input.value = args[0]; else state.pendingText = args[0]; break;
      case 'prechat:field': state.prechatPrefill[args[0]] = args[1]; renderPrechat(); break;
      case 'prechat:submit': state.prechat = 'submitted'; renderPrechat(); emit('prechat:submitted', { fields: args[0] }); break;
      case 'prechat:skip': state.prechat = 'skipped'; renderPrechat(); emit('prechat:skipped', {}); break;
      case 'product': case 'cart': case 'order': case 'locale': state[command] = args[0]; break;
      case 'identify': mergeUser(args[0]); break;
      case 'user:email': mergeUser({ email: args[0] }); break;
      case 'user:name': mergeUser({ name: args[0] }); break;
      case 'user:phone': mergeUser({ phone: args[0] }); break;
      case 'typing:set': emit('visitor:typing', { active: args[0] }); break;
      case 'article:show': setOpen(true); break;
      default: break;
    }
  }
  function mergeUser(u) { for (var k in u) if (has(u, k)) state.user[k] = u[k]; }

  // True when the command was accepted (the widget's own controls need to know).
  function push(item) {
    try {
      if (!Array.isArray(item) || item.length === 0) {
        warn('push expects an array like [\'chat:open\'] or [\'message:send\', \'Hello\']');
        return false;
      }
      var command = item[0], args = item.slice(1);
      var counted = { key: state.session ? state.session.sessionId : 'pending' };
      var w = validate(counted.key, command, args);
      counted.at = Date.now();  // the limiter's clock, read after it counted
      if (w) { warn(w); return false; }
      args = JSON.parse(JSON.stringify(args));  // the page keeps its own objects
      applyLocal(command, args);
      if (SERVER_COMMANDS.indexOf(command) >= 0) send(command, args, counted);
      return true;
    } catch (e) {
      warn('internal error: ' + (e && e.message));
      return false;
    }
  }

  function on(name, fn) {
    try {
      if (EVENTS.indexOf(name) < 0) { warn('on: unknown event "' + name + '" (see docs/sdk.md)'); return; }
      if (typeof fn !== 'function') { warn('on: the handler of "' + name + '" must be a function'); return; }
      (handlers[name] || (handlers[name] = [])).push(fn);
    } catch (e) { warn('internal error: ' + (e && e.message)); }
  }
  function off(name, fn) {
    try {
      var list = handlers[name];
      if (!list) return;
      handlers[name] = fn === undefined ? [] : list.filter(function (h) { return h !== fn; });
    } catch (e) { warn('internal error: ' + (e && e.message)); }
  }
  function agentAvailable() { return state.agentTyping || (Date.now() - state.lastAgentAt < AGENT_RECENT_MS); }
  function is(key) {
    try {
      switch (key) {
        case 'chat:open': return state.open;
        case 'widget:visible': return state.visible;
        case 'launcher:visible': return state.visible && state.launcherVisible && !state.open;
        case 'session:active': return !!state.session;
        case 'conversation:active': return !!state.conversationId && state.status !== 'resolved';
        case 'prechat:required': return state.prechat === 'pending';
        case 'prechat:completed': return state.prechat === 'submitted' || state.prechat === 'skipped';
        case 'agent:available': return agentAvailable();
        case 'agent:typing': return state.agentTyping;
        default: warn('is: unknown key "' + key + '" (one of ' + IS_KEYS.join(', ') + ')'); return false;
      }
    } catch (e) { warn('internal error: ' + (e && e.message)); return false; }
  }
  function clone(v) { return v === null || v === undefined ? null : JSON.parse(JSON.stringify(v)); }
  function get(key) {
    try {
      switch (key) {
        case 'message:text': return ui ? ui.input.value : (state.pendingText || '');
        case 'conversation:id': return typeof state.conversationId === 'string' ? state.conversationId : null;
        case 'session:id': return state.session ? state.session.sessionId : null;
        case 'unread:count': return state.unread;
        case 'prechat:config': return { enabled: prechatFields.length > 0, fields: prechatFields.slice() };
        case 'prechat:fields': return clone(state.prechatPrefill);
        case 'product': case 'cart': case 'order': case 'locale': return clone(state[key]);
        case 'user': return clone(state.user);
        default: warn('get: unknown key "' + key + '" (one of ' + GET_KEYS.join(', ') + ')'); return undefined;
      }
    } catch (e) { warn('internal error: ' + (e && e.message)); return undefined; }
  }

  // ---------------- the widget ----------------

  var CSS = [
    '.lc-root{position:fixed;right:20px;bottom:20px;z-index:2147483000;font:14px/1.4 system-ui,sans-serif;color:#1f2328;display:flex;flex-direction:column;align-items:flex-end}',
    '.lc-launcher{width:56px;height:56px;border-radius:50%;border:0;background:#1a56db;color:#fff;cursor:pointer;box-shadow:0 4px 12px rgba(0,0,0,.25);position:relative;display:flex;align-items:center;justify-content:center}',
    '.lc-launcher svg{width:28px;height:28px;fill:currentColor}',
    '.lc-launcher:focus-visible,.lc-root button:focus-visible,.lc-root textarea:focus-visible,.lc-root input:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}',
    '.lc-badge{position:absolute;top:-4px;right:-4px;min-width:20px;height:20px;border-radius:10px;background:#d1242f;color:#fff;font-size:12px;line-height:20px;text-align:center}',
    '.lc-window{width:340px;max-width:calc(100vw - 40px);height:480px;max-height:calc(100vh - 100px);background:#fff;border-radius:12px;box-shadow:0 8px 28px rgba(0,0,0,.25);display:flex;flex-direction:column;overflow:hidden;margin-bottom:12px}',
    '.lc-header{background:#1a56db;color:#fff;padding:12px 16px;display:flex;align-items:center;justify-content:space-between}',
    '.lc-header h2{font-size:16px;margin:0}',
    '.lc-close{background:transparent;border:0;color:#fff;font-size:20px;cursor:pointer}',
    '.lc-list{list-style:none;margin:0;padding:12px;flex:1;overflow-y:auto;display:flex;flex-direction:column;gap:8px}',
    '.lc-msg{max-width:80%;padding:8px 12px;border-radius:12px;white-space:pre-wrap;word-wrap:break-word}',
    '.lc-msg-customer{align-self:flex-end;background:#1a56db;color:#fff}',
    '.lc-msg-agent,.lc-msg-bot{align-self:flex-start;background:#eef1f5}',
    '.lc-msg-system{align-self:center;background:transparent;color:#57606a;font-size:12px}',
    '.lc-sender{display:block;font-size:11px;opacity:.8}',
    '.lc-typing{padding:0 12px 6px;color:#57606a;font-size:12px;min-height:18px}',
    '.lc-composer{display:flex;gap:8px;padding:8px;border-top:1px solid #d0d7de}',
    '.lc-attach{cursor:pointer;align-self:center;font-size:18px}.lc-file{display:block;margin-top:4px}.lc-file img{max-width:100%;max-height:160px;border-radius:6px}',
    '.lc-composer textarea{flex:1;resize:none;border:1px solid #d0d7de;border-radius:8px;padding:8px;font:inherit;height:40px}',
    '.lc-send,.lc-prechat button{background:#1a56db;color:#fff;border:0;border-radius:8px;padding:0 14px;cursor:pointer;font:inherit}',
    '.lc-prechat{padding:12px;display:flex;flex-direction:column;gap:8px;border-top:1px solid #d0d7de}',
    '.lc-prechat label{display:flex;flex-direction:column;font-size:12px;gap:2px}',
    '.lc-prechat input{border:1px solid #d0d7de;border-radius:6px;padding:6px;font:inherit}',
    '.lc-prechat .lc-skip{background:transparent;color:#1a56db}',
    '.lc-visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}',
    '[hidden]{display:none!important}'
  ].join('\n');

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) if (has(attrs, k)) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function buildUi() {
    var style = el('style', {});
    style.textContent = CSS;
    document.head.appendChild(style);
    var root = el('div', { 'class': 'lc-root', id: 'livechat-widget' });
    var win = el('section', { 'class': 'lc-window', id: 'lc-window', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'lc-title', hidden: '' });
    var header = el('div', { 'class': 'lc-header' });
    header.appendChild(el('h2', { id: 'lc-title' }, 'Chat with us'));
    var close = el('button', { type: 'button', 'class': 'lc-close', 'aria-label': 'Close chat' }, '\u00d7');
    header.appendChild(close);
    var list = el('ol', { 'class': 'lc-list', role: 'log', 'aria-live': 'polite', 'aria-label': 'Messages' });
    var typing = el('div', { 'class': 'lc-typing', 'aria-live': 'polite' });
    var prechat = el('form', { 'class': 'lc-prechat', 'aria-label': 'Before we start', hidden: '' });
    var form = el('form', { 'class': 'lc-composer', 'aria-label': 'Send a message' });
    var label = el('label', { 'for': 'lc-input', 'class': 'lc-visually-hidden' }, 'Message');
    var input = el('textarea', { id: 'lc-input', rows: '1', placeholder: 'Write a message\u2026', maxlength: String(LIMITS.messageTextMax * 2) });
    var sendButton = el('button', { type: 'submit', 'class': 'lc-send' }, 'Send');
    var fileInput = el('input', { type: 'file', id: 'lc-file', 'class': 'lc-visually-hidden',
      accept: 'image/png,image/jpeg,image/gif,image/webp,application/pdf,text/plain' });
    var attach = el('label', { 'for': 'lc-file', 'class': 'lc-attach', title: 'Attach a file' }, '\ud83d\udcce');
    form.appendChild(label);
    form.appendChild(fileInput);
    form.appendChild(attach);
    form.appendChild(input);
    form.appendChild(sendButton);
    fileInput.addEventListener('change', function () {
      if (fileInput.files && fileInput.files[0]) sendFile(fileInput.files[0]);
      fileInput.value = '';
    });
    win.appendChild(header);
    win.appendChild(list);
    win.appendChild(typing);
    win.appendChild(prechat);
    win.appendChild(form);
    var launcher = el('button', { type: 'button', 'class': 'lc-launcher', 'aria-label': 'Open chat', 'aria-expanded': 'false', 'aria-controls': 'lc-window' });
    // A speech bubble drawn inline: no font or image request needed.
    var icon = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    icon.setAttribute('viewBox', '0 0 24 24');
    icon.setAttribute('aria-hidden', 'true');
    var path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z');
    icon.appendChild(path);
    launcher.appendChild(icon);
    var badge = el('span', { 'class': 'lc-badge', 'aria-label': '0 unread messages', hidden: '' }, '0');
    launcher.appendChild(badge);
    root.appendChild(win);
    root.appendChild(launcher);
    document.body.appendChild(root);
    ui = { root: root, win: win, list: list, typing: typing, prechat: prechat, form: form, input: input, launcher: launcher, badge: badge, close: close };
    if (state.pendingText) input.value = state.pendingText;

    launcher.addEventListener('click', function () { push(['chat:toggle']); });
    close.addEventListener('click', function () { push(['chat:close']); launcher.focus(); });
    win.addEventListener('keydown', function (e) {
      if (e.key === 'Escape') { push(['chat:close']); launcher.focus(); }
    });
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var text = input.value;
      if (trimAscii(text) === '') return;
      if (state.prechat === 'pending') { renderPrechat(); return; }
      if (push(['message:send', text])) input.value = '';
      stopTyping();
    });
    input.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); form.requestSubmit ? form.requestSubmit() : form.dispatchEvent(new Event('submit')); }
    });
    var typingTimer = null, lastTypingSent = 0;
    function stopTyping() {
      if (typingTimer) { clearTimeout(typingTimer); typingTimer = null; push(['typing:set', false]); }
    }
    input.addEventListener('input', function () {
      if (!state.conversationId) return;
      // At most one "typing" per 5 s and one "stopped" after 2 s idle: under the 30-a-minute limit.
      if (Date.now() - lastTypingSent > 5000) { lastTypingSent = Date.now(); push(['typing:set', true]); }
      if (typingTimer) clearTimeout(typingTimer);
      typingTimer = setTimeout(function () { typingTimer = null; push(['typing:set', false]); }, 2000);
    });
    render();
    renderPrechat();
  }

  function fieldLabel(name) {
    var known = { name: 'Name', email: 'Email', phone: 'Phone' };
    return known[name] || name.replace(/_/g, ' ').replace(/^./, function (c) { return c.toUpperCase(); });
  }
  function renderPrechat() {
    if (!ui) return;
    var show = state.prechat === 'pending' && state.open;
    ui.prechat.hidden = !show;
    ui.form.hidden = show;
    if (!show) return;
    ui.prechat.innerHTML = '';
    prechatFields.forEach(function (f) {
      var l = el('label', {}, fieldLabel(f));
      var i = el('input', { name: f, type: f === 'email' ? 'email' : f === 'phone' ? 'tel' : 'text', autocomplete: f === 'name' ? 'name' : f });
      i.value = state.prechatPrefill[f] || '';
      l.appendChild(i);
      ui.prechat.appendChild(l);
    });
    var go = el('button', { type: 'submit' }, 'Start chat');
    var skip = el('button', { type: 'button', 'class': 'lc-skip' }, 'Skip');
    ui.prechat.appendChild(go);
    ui.prechat.appendChild(skip);
    ui.prechat.onsubmit = function (e) {
      e.preventDefault();
      var fields = {};
      prechatFields.forEach(function (f) {
        var v = ui.prechat.querySelector('[name="' + f + '"]').value;
        if (v !== '') fields[f] = v;
      });
      if (Object.keys(fields).length === 0) { push(['prechat:skip']); } else { push(['prechat:submit', fields]); }
      if (state.prechat !== 'pending') ui.input.focus();
    };
    skip.onclick = function () { push(['prechat:skip']); ui.input.focus(); };
    emit('prechat:shown', { fields: prechatFields.slice() });
  }

  function renderMessage(m) {
    if (!ui) return;
    var li = el('li', { 'class': 'lc-msg lc-msg-' + m.senderType, 'data-message-id': m.id });
    if (m.senderType !== 'customer' && m.senderType !== 'system') li.appendChild(el('span', { 'class': 'lc-sender' }, m.senderName));
    li.appendChild(document.createTextNode(m.text));
    var files = Array.isArray(m.files) ? m.files : [];
    for (var i = 0; i < files.length; i++) {
      var f = files[i];
      if (!f || typeof f.url !== 'string') continue;
      var href = fileHref(f.url);
      var a = el('a', { href: href, target: '_blank', rel: 'noopener noreferrer', 'class': 'lc-file' });
      if (/^image\//.test(f.contentType)) a.appendChild(el('img', { src: href, alt: String(f.name || 'image') }));
      else a.textContent = String(f.name || 'file');
      li.appendChild(a);
    }
    ui.list.appendChild(li);
    ui.list.scrollTop = ui.list.scrollHeight;
  }
  function renderTyping() { if (ui) ui.typing.textContent = state.agentTyping ? 'An agent is typing\u2026' : ''; }
  function renderUnread() {
    if (!ui) return;
    ui.badge.hidden = state.unread === 0;
    ui.badge.textContent = String(state.unread);
    ui.badge.setAttribute('aria-label', state.unread + ' unread messages');
  }
  function render() {
    if (!ui) return;
    ui.root.hidden = !state.visible;
    ui.win.hidden = !state.open;
    ui.launcher.hidden = !state.launcherVisible;
    ui.launcher.setAttribute('aria-expanded', state.open ? 'true' : 'false');
    ui.launcher.setAttribute('aria-label', state.open ? 'Close chat' : 'Open chat');
  }
  function setOpen(open) {
    if (open === state.open) return;
    state.open = open;
    if (open && state.unread) { state.unread = 0; renderUnread(); emit('unread:changed', { count: 0 }); }
    render();
    renderPrechat();
    if (open && ui) (state.prechat === 'pending' ? ui.prechat.querySelector('input') || ui.input : ui.input).focus();
    emit(open ? 'chat:opened' : 'chat:closed', {});
  }
  function setVisible(v) {
    if (v === state.visible) return;
    state.visible = v;
    render();
    emit(v ? 'widget:shown' : 'widget:hidden', {});
  }

  // ---------------- start ----------------

  var queued = Array.isArray(window.LiveChat) ? window.LiveChat.slice() : [];
  var api = {};
  Object.defineProperty(api, 'push', { value: function (item) { push(item); }, enumerable: true });
  Object.defineProperty(api, 'on', { value: function (n, f) { on(n, f); }, enumerable: true });
  Object.defineProperty(api, 'off', { value: function (n, f) { off(n, f); }, enumerable: true });
  Object.defineProperty(api, 'is', { value: is, enumerable: true });
  Object.defineProperty(api, 'get', { value: get, enumerable: true });
  Object.defineProperty(api, 'version', { value: function () { return VERSION; }, enumerable: true });
  window.LiveChat = api;
  window.LiveChatRules = Rules;

  if (!appId) {
    warn('no App ID: add data-app-id="..." to the sdk.js script tag');
    return;
  }
  function boot() {
    try {
      buildUi();
      for (var i = 0; i < queued.length; i++) push(queued[i]);
      recordPageView();
      // Only a session with a conversation polls: a visitor who never chats holds no waiter.
      chain = chain.then(function () {
        if (state.conversationId) restartPolling();
        emit('ready', { version: VERSION, sessionId: state.session && state.session.sessionId });
      },
                         function (e) { warn('could not start: ' + (e && e.message)); });
      window.addEventListener('popstate', recordPageView);
    } catch (e) { warn('internal error: ' + (e && e.message)); }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot); else boot();
})(window, document);
