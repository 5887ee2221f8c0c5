// <adreswijzer-form>: the embeddable address form of Adreswijzer. A plain ES module, no
// build step, no dependencies:
//
//   <script type="module" src="https://api.example/widget/adreswijzer-form.js"></script>
//   <adreswijzer-form data-key="aw_pk_live_…" data-country="nl" lang="nl"
//       data-fields="address1:shipping_address1,address2:shipping_address2,zip:shipping_zip,city:shipping_city">
//     …the shop's own address inputs, used as they are if the form cannot load…
//   </adreswijzer-form>
//
// This file is only the shell: it draws what the core (adreswijzer.wasm, Go compiled to a
// WASI reactor) says to draw, passes it every event, and carries out its effects literally
// (fetch, timers, focus, filling the shop's fields). Every decision — when to ask the API,
// which answer still counts, when to fail open, what to say — is the core's, tested in Go.
// README.md documents the attributes, events and CSS custom properties.
//
// The fields are drawn as soon as this script runs, and take typing at once; the core is
// fetched when the customer first focuses the form or the page is idle, whichever comes
// first, and then takes over what was typed. The names of the core and the shim below are
// replaced by content-hashed ones when the files are built for serving (widget/dist).

const CORE = './adreswijzer.wasm';
const SHIM = './wasi.js';

const scriptURL = new URL(import.meta.url);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// One instance of the core per page; each element is a form inside it.
let reactor;
function core() {
  // The shim and the core are fetched together: one round trip, not two in a row.
  reactor ??= Promise.all([import(new URL(SHIM, scriptURL).href), fetch(new URL(CORE, scriptURL), { credentials: 'omit' })])
    .then(([shim, response]) => shim.loadReactor(response));
  return reactor;
}

// The form before its core is there: the labels and order of an empty form in each language
// (the core's first view replaces them; the browser tests compare the two). NL asks postcode
// and number first, BE the street within the postcode.
const FIRST = {
  nl: { title: 'Adres', postcode: 'Postcode', number: 'Huisnummer', addition: 'Toevoeging (niet verplicht)', box: 'Bus (niet verplicht)', street: 'Straat', city: 'Plaats' },
  fr: { title: 'Adresse', postcode: 'Code postal', number: 'Numéro', addition: 'Complément (facultatif)', box: 'Boîte (facultatif)', street: 'Rue', city: 'Localité' },
  de: { title: 'Adresse', postcode: 'Postleitzahl', number: 'Hausnummer', addition: 'Zusatz (optional)', box: 'Briefkasten (optional)', street: 'Straße', city: 'Ort' },
  en: { title: 'Address', postcode: 'Postcode', number: 'House number', addition: 'Addition (optional)', box: 'Box (optional)', street: 'Street', city: 'Town or city' },
};

function firstView(cfg) {
  const t = FIRST[cfg.lang] || FIRST.nl;
  const be = cfg.country === 'BE';
  const order = be ? ['postcode', 'street', 'number', 'addition', 'city'] : ['postcode', 'number', 'addition', 'street', 'city'];
  const autocomplete = { postcode: 'postal-code', street: 'address-line1', city: 'address-level2' };
  return {
    title: t.title, state: 'loading', busy: false, list: null, message: '', messageKind: '', messageField: '',
    manual: { visible: false, label: '' }, confirm: { visible: false, label: '', checked: false },
    correction: { visible: false, text: '', options: [], keep: '' }, committed: false, unverified: false, attribution: '',
    fields: order.map((name) => ({
      name, label: name === 'addition' && be ? t.box : t[name], value: null, visible: be || name === 'postcode' || name === 'number',
      readOnly: false, required: name === 'postcode' || name === 'number' || be && name === 'street', invalid: false,
      autocomplete: autocomplete[name] || '', inputMode: be && name === 'postcode' ? 'numeric' : 'text', combo: false,
    })),
  };
}

// Start-up and refusal diagnostics go to the console once each, for the shop's developer:
// the customer is told in the form.
const said = new Set();
function diagnose(kind, text) {
  if (said.has(kind)) return;
  said.add(kind);
  console.warn(`adreswijzer: ${text}`);
}

function checkSetup(el) {
  const key = el.dataset.key || '';
  if (!key) diagnose('no-key', 'data-key is empty: set it to the publishable key (aw_pk_live_… or aw_pk_test_…) of this shop. Customers can type their address, unverified.');
  else if (!/_pk_(live|test)_/.test(key)) diagnose('secret-key', 'data-key is not a publishable key (aw_pk_…). Never put a secret key in a page: revoke it, and create a publishable key bound to this origin.');
  const api = el.dataset.api || scriptURL.origin;
  if (!/^https:|^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(api + '/')) diagnose('insecure-api', `data-api (${api}) is not HTTPS: the key and addresses would travel in the clear.`);
}

// explainRefusal tells the shop's developer why the API refused the form's calls: the
// origin not allowed for the key, the key refused, or its daily cap or quota spent.
function explainRefusal(status, body, retryAfter) {
  let code = '';
  try { code = JSON.parse(body).error.code || ''; } catch { /* not an ErrorResponse */ }
  const origin = location.origin;
  if (status === 403) {
    diagnose('origin', `the API refused this page's origin (${origin}) for the publishable key (403 ${code}). Add it to the key's allowed origins: gateway keys create --kind pk_live … --origin ${origin}. Customers type their address unverified meanwhile.`);
  } else if (status === 401) {
    diagnose('key', `the API refused the publishable key (401 ${code}): check data-key (revoked, mistyped, or a key of another environment). Customers type their address unverified meanwhile.`);
  } else if (code === 'DAILY_CAP_REACHED') {
    diagnose('cap', `the key's daily cap is spent (429 DAILY_CAP_REACHED); the form asks again in ${retryAfter || '?'} s. Customers type their address unverified meanwhile; raise the cap or the plan.`);
  } else if (code === 'QUOTA_EXCEEDED') {
    diagnose('quota', `the account's quota of verifications is spent (${status} QUOTA_EXCEEDED). Customers type their address unverified until the plan is raised or the month ends.`);
  }
}

function callCore(exports, fn, ...args) {
  const bytes = encoder.encode(JSON.stringify(args.pop()));
  const ptr = exports.alloc(bytes.length) >>> 0;
  new Uint8Array(exports.memory.buffer, ptr, bytes.length).set(bytes); // fresh buffer: memory may have grown
  const r = exports[fn](...args, ptr, bytes.length);
  exports.free(ptr);
  return r;
}

function readResult(exports, r) {
  if (!r) return null;
  r = BigInt(r); // i64 results arrive as BigInt
  const ptr = Number(r >> 32n);
  const len = Number(r & 0xffffffffn);
  return JSON.parse(decoder.decode(new Uint8Array(exports.memory.buffer, ptr, len)));
}

// The form's rules. Every selector is wrapped whole in :where(), which weighs nothing, so any
// rule of the shop's wins whatever its order. They are adopted as a constructed stylesheet:
// a page whose Content-Security-Policy forbids inline styles (no style-src 'unsafe-inline')
// blocks an injected <style>, not a stylesheet built through the CSSOM.
const STYLE = `
:where(adreswijzer-form) { display: block; font: var(--aw-font, inherit); color: var(--aw-color, inherit); }
:where(adreswijzer-form .aw-fieldset) { border: var(--aw-fieldset-border, 0); margin: 0; padding: var(--aw-fieldset-padding, 0); min-width: 0; }
:where(adreswijzer-form .aw-legend) { font-weight: var(--aw-legend-weight, 600); margin-bottom: var(--aw-gap, .75rem); padding: 0; display: var(--aw-legend-display, block); }
:where(adreswijzer-form .aw-field) { position: relative; margin-bottom: var(--aw-gap, .75rem); }
:where(adreswijzer-form .aw-label) { display: block; margin-bottom: .25rem; color: var(--aw-label-color, inherit); font-size: var(--aw-label-size, .95em); }
:where(adreswijzer-form .aw-input) { box-sizing: border-box; width: 100%; font: inherit; padding: var(--aw-input-padding, .5rem .625rem);
  border: var(--aw-input-border, 1px solid #767676); border-radius: var(--aw-radius, .375rem); background: var(--aw-input-bg, #fff); color: inherit; }
:where(adreswijzer-form .aw-input:focus) { outline: var(--aw-focus-ring, 3px solid #2563eb); outline-offset: 1px; }
:where(adreswijzer-form .aw-input[readonly]) { background: var(--aw-readonly-bg, #f3f4f6); }
:where(adreswijzer-form .aw-input[aria-invalid="true"]) { border-color: var(--aw-error-color, #b91c1c); }
:where(adreswijzer-form .aw-list) { margin: .125rem 0 0; padding: .25rem 0; list-style: none;
  max-height: var(--aw-list-max-height, 16rem); overflow-y: auto; background: var(--aw-list-bg, #fff);
  border: var(--aw-input-border, 1px solid #767676); border-radius: var(--aw-radius, .375rem); box-shadow: var(--aw-list-shadow, 0 6px 18px rgba(0,0,0,.15)); }
:where(adreswijzer-form .aw-option) { padding: .4rem .625rem; cursor: pointer; }
:where(adreswijzer-form .aw-option[aria-selected="true"]) { background: var(--aw-active-bg, #dbeafe); color: var(--aw-active-color, inherit); }
:where(adreswijzer-form .aw-option.aw-chosen)::after { content: " ✓"; }
:where(adreswijzer-form .aw-message) { min-height: 1.25em; margin: 0 0 var(--aw-gap, .75rem); font-size: var(--aw-message-size, .95em); }
:where(adreswijzer-form .aw-message[data-kind="error"]) { color: var(--aw-error-color, #b91c1c); }
:where(adreswijzer-form .aw-message[data-kind="warning"]) { color: var(--aw-warning-color, #92400e); }
:where(adreswijzer-form .aw-message[data-kind="info"]) { color: var(--aw-info-color, #1f2937); }
:where(adreswijzer-form .aw-correction) { margin: 0 0 var(--aw-gap, .75rem); }
:where(adreswijzer-form .aw-correction p) { margin: 0 0 .5rem; font-weight: 600; }
:where(adreswijzer-form .aw-correction button) { display: block; text-align: left; font: inherit; margin: 0 0 .375rem; padding: .375rem .75rem; cursor: pointer; color: inherit;
  border: var(--aw-input-border, 1px solid #767676); border-radius: var(--aw-radius, .375rem); background: var(--aw-input-bg, #fff); }
:where(adreswijzer-form .aw-correction button:focus) { outline: var(--aw-focus-ring, 3px solid #2563eb); outline-offset: 1px; }
:where(adreswijzer-form .aw-confirm) { display: flex; gap: .5rem; align-items: flex-start; margin-bottom: var(--aw-gap, .75rem); }
:where(adreswijzer-form .aw-manual) { font: inherit; background: none; border: 0; padding: 0; color: var(--aw-link-color, #1d4ed8); text-decoration: underline; cursor: pointer; }
:where(adreswijzer-form .aw-attribution) { font-size: var(--aw-attribution-size, .75em); color: var(--aw-muted-color, #595959); margin: .5rem 0 0; }
:where(adreswijzer-form[data-state="busy"] .aw-fieldset) { cursor: progress; }
:where(adreswijzer-form [hidden]) { display: none; }
`;

let styled = false;
function adoptStyle() {
  if (styled) return;
  styled = true;
  if ('adoptedStyleSheets' in Document.prototype && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
    document.adoptedStyleSheets = [sheet, ...document.adoptedStyleSheets];
    return;
  }
  // Browsers without constructed stylesheets (before 2023): an element, which a strict CSP
  // blocks; the form then takes the shop's own styles only.
  const style = document.createElement('style');
  style.textContent = STYLE;
  document.head.prepend(style);
}

// A shop form may hold several address forms (shipping, billing). Its submission goes ahead
// once every one of them has handed over its address; a form that blocks (a house number is
// missing) keeps it back until the customer submits again.
const rounds = new WeakMap();

function coordinator(form) {
  let c = rounds.get(form);
  if (c) return c;
  c = { widgets: new Set(), waiting: new Set(), passing: false, submitter: null };
  form.addEventListener('submit', (ev) => {
    if (c.passing) {
      c.passing = false;
      return;
    }
    if (c.widgets.size === 0) return;
    ev.preventDefault();
    c.submitter = ev.submitter;
    c.waiting = new Set(c.widgets);
    for (const w of c.widgets) w._submit();
  });
  c.proceeded = (w) => {
    if (!c.waiting.delete(w) || c.waiting.size > 0) return;
    // After the current event: a submission requested during one is ignored.
    setTimeout(() => {
      c.passing = true;
      const s = c.submitter;
      form.requestSubmit(s && s.form === form ? s : undefined);
      c.passing = false;
    });
  };
  rounds.set(form, c);
  return c;
}

let counter = 0;

const KEYS = new Set(['ArrowDown', 'ArrowUp', 'Enter', 'Escape']);

// The keys of data-fields whose inputs the customer may have typed into before this script
// ran; what they hold is carried over into the form's fields.
const TYPED = ['address1', 'address2', 'zip', 'city', 'street', 'houseNumber', 'houseNumberAddition'];

const TARGETS = ['address1', 'address2', 'zip', 'city', 'countryCode', 'street', 'houseNumber', 'houseNumberAddition', 'status', 'unverified', 'confirmed'];

const DEFAULT_FIELDS = 'address1:address1,address2:address2,zip:zip,city:city,countryCode:countryCode';

// The shop always receives the verdict: these fields are created as hidden inputs when
// data-fields does not name them.
const VERDICT = [['status', 'addressStatus'], ['unverified', 'addressUnverified']];

const idle = (f) => (window.requestIdleCallback ? requestIdleCallback(f, { timeout: 2000 }) : setTimeout(f, 200));

export class AdreswijzerForm extends HTMLElement {
  static observedAttributes = ['data-country', 'lang', 'data-carrier'];

  #exports = null;
  #handle = 0;
  #uid = `aw${++counter}`;
  #els = {};
  #timers = new Map();
  #fetches = new Map();
  #view = null;
  #round = null;
  #fallback = null;
  #started = false;
  #loading = false;
  #drawn = false;
  #submitPending = false;
  #enterTaken = false;
  #shopRequires = true;

  /** The address handed to the shop, or null. */
  value = null;

  connectedCallback() {
    if (this.#started) {
      if (this.#drawn) this.#round?.widgets.add(this);
      return;
    }
    this.#started = true;
    checkSetup(this);
    const form = this.closest('form');
    if (form) this.#round = coordinator(form);
    // What was typed into the shop's own inputs before this script ran stays there until the
    // core can split it (a street line into street and number); otherwise the form's own
    // fields take their place at once.
    const typed = this.#typedWhileLoading();
    if (typed) {
      this.#loadCore(typed);
      return;
    }
    this.#draw();
    this.addEventListener('focusin', () => this.#loadCore(), { once: true });
    idle(() => this.#loadCore());
  }

  disconnectedCallback() {
    this.#round?.widgets.delete(this);
  }

  attributeChangedCallback() {
    if (this.#handle) this.#send({ type: 'config', ...this.#config() });
    else if (this.#drawn) this.#render(firstView(this.#config()));
  }

  #config() {
    const lang = (this.getAttribute('lang') || this.closest('[lang]')?.getAttribute('lang') || 'nl').slice(0, 2).toLowerCase();
    return {
      // Passed as it is: the core keeps its country when this is empty or unknown.
      country: (this.dataset.country || '').toUpperCase(),
      lang,
      carrier: this.dataset.carrier || '',
      allowPoBox: this.hasAttribute('data-allow-po-box'),
      touch: window.matchMedia?.('(pointer: coarse)').matches || false,
    };
  }

  // #draw puts the form's fields in the place of the shop's own inputs (progressive
  // enhancement: those stay when this script cannot run). They are hidden, not removed, and
  // shown again, holding what was typed, when the core cannot start.
  #draw() {
    if (this.#drawn) return;
    this.#drawn = true;
    adoptStyle();
    if (this.childNodes.length) {
      const box = document.createElement('div');
      box.className = 'aw-fallback';
      box.hidden = true;
      box.append(...this.childNodes);
      // A hidden required input would stop the shop's form with nothing to show; the
      // form's own fields carry required instead, as long as the shop asked for it.
      const required = box.querySelectorAll('[required]');
      this.#shopRequires = required.length > 0 || !box.querySelector('input, select, textarea');
      for (const el of required) {
        el.removeAttribute('required');
        el.dataset.awRequired = '';
      }
      this.#fallback = box;
      this.append(box);
    }
    this.#build();
    const first = firstView(this.#config());
    this.#render(first);
    this.#round?.widgets.add(this);
  }

  #loadCore(typed) {
    if (this.#loading) return;
    this.#loading = true;
    core().then((exports) => this.#mount(exports, typed)).catch((err) => this.#unavailable(err));
  }

  // The core could not start: the shop's own inputs come back, with what was typed into the
  // form's fields and their required; the customer can always type an address.
  #unavailable(err) {
    console.warn('adreswijzer: the address form could not start; the page\'s own fields are used.', err?.message || err);
    this.setAttribute('data-state', 'unavailable');
    this.#round?.widgets.delete(this);
    const box = this.#fallback;
    if (this.#drawn) {
      const f = this.#els.fields;
      const v = (n) => f[n].input.value.trim();
      const had = this.contains(document.activeElement);
      const values = { address1: `${v('street')} ${v('number')}`.trim(), address2: v('addition'), zip: v('postcode'), city: v('city'), street: v('street'), houseNumber: v('number'), houseNumberAddition: v('addition') };
      this.#els.fs.remove();
      if (box) {
        for (const [key, name] of this.#mapping()) {
          const input = box.querySelector(`[name="${CSS.escape(name)}"]`);
          if (input && values[key] && !input.value) input.value = values[key];
        }
      }
      if (had) box?.querySelector('input')?.focus();
    }
    if (box) {
      for (const el of box.querySelectorAll('[data-aw-required]')) el.required = true;
      box.hidden = false;
      this.append(...box.childNodes);
      box.remove();
      this.#fallback = null;
    }
    if (this.#submitPending) this.closest('form')?.requestSubmit();
  }

  #mount(exports, typed) {
    if (!this.isConnected) return;
    this.#exports = exports;
    this.#draw();
    // Read before the core's first view, which draws its own (empty) values.
    const own = typed || this.#typedSinceDrawn();
    this.#handle = callCore(exports, 'create', this.#config());
    this.#send({ type: 'render' });
    if (own) this.#send({ type: 'prefill', ...own });
    if (this.#submitPending) {
      this.#submitPending = false;
      this._submit();
    }
  }

  // #typedWhileLoading reads what the customer typed into the shop's own inputs before this
  // script ran, and which of them has the focus: the core carries both over into its fields.
  #typedWhileLoading() {
    const values = {};
    let focus = '';
    const own = [...this.querySelectorAll('input, textarea')];
    for (const [key, name] of this.#mapping()) {
      if (!TYPED.includes(key)) continue;
      const input = own.find((e) => e.name === name);
      if (!input) continue;
      if (input.value.trim()) values[key] = input.value;
      if (input === document.activeElement) focus = key;
    }
    return Object.keys(values).length || focus ? { values, focus } : null;
  }

  // #typedSinceDrawn reads what was typed into the form's own fields before the core arrived.
  #typedSinceDrawn() {
    const values = {};
    let focus = '';
    for (const [name, { input }] of Object.entries(this.#els.fields || {})) {
      if (input.value) values[name] = input.value;
      if (input === document.activeElement) focus = name;
    }
    return Object.keys(values).length || focus ? { values, focus } : null;
  }

  _submit() {
    if (!this.#handle) {
      // Submitted before the core arrived: it is fetched now and checks the address then.
      this.#submitPending = true;
      this.#loadCore();
      return;
    }
    this.#send({ type: 'submit' });
  }

  #build() {
    const id = this.#uid;
    const fs = el('fieldset', { class: 'aw-fieldset' });
    const legend = el('legend', { class: 'aw-legend' });
    fs.append(legend);
    this.#els = { fs, legend, fields: {}, lists: {} };
    for (const name of ['postcode', 'street', 'number', 'addition', 'city']) {
      const wrap = el('div', { class: 'aw-field', 'data-field': name });
      const label = el('label', { class: 'aw-label', for: `${id}-${name}` });
      const input = el('input', { class: 'aw-input', id: `${id}-${name}`, type: 'text', maxlength: '200', spellcheck: 'false' });
      wrap.append(label, input);
      input.addEventListener('input', () => this.#send({ type: 'input', field: name, text: input.value }));
      input.addEventListener('focus', () => this.#send({ type: 'focus', field: name }));
      input.addEventListener('blur', () => this.#send({ type: 'blur', field: name }));
      input.addEventListener('keydown', (ev) => {
        if (!KEYS.has(ev.key) || ev.isComposing || ev.altKey && ev.key !== 'ArrowDown') return;
        const r = this.#send({ type: 'key', field: name, key: ev.key });
        if (r?.handled) {
          ev.preventDefault();
          this.#enterTaken = ev.key === 'Enter';
        }
      });
      // An Enter that chose an option must not also submit the shop's form. Cancelling the
      // keydown stops that in browsers; input methods and automation that deliver the
      // character separately are caught here.
      input.addEventListener('keypress', (ev) => {
        if (ev.key === 'Enter' && this.#enterTaken) ev.preventDefault();
      });
      input.addEventListener('keyup', () => { this.#enterTaken = false; });
      this.#els.fields[name] = { wrap, label, input };
      fs.append(wrap);
    }
    const confirmBox = el('input', { type: 'checkbox', id: `${id}-confirm` });
    const confirmLabel = el('label', { class: 'aw-confirm', for: `${id}-confirm` });
    const confirmText = el('span');
    confirmLabel.append(confirmBox, confirmText);
    confirmBox.addEventListener('change', () => this.#send({ type: 'confirm', checked: confirmBox.checked }));
    // A corrected address: the register's versions beside the customer's, and their choice.
    const correction = el('div', { class: 'aw-correction', role: 'group', 'aria-labelledby': `${id}-correction`, hidden: '' });
    const correctionText = el('p', { id: `${id}-correction` });
    const useBox = el('div');
    const keepTyped = el('button', { type: 'button', class: 'aw-keep' });
    correction.append(correctionText, useBox, keepTyped);
    useBox.addEventListener('click', (ev) => {
      const b = ev.target.closest('button');
      if (b) this.#send({ type: 'correction', use: true, index: Number(b.dataset.index) });
    });
    keepTyped.addEventListener('click', () => this.#send({ type: 'correction', use: false }));
    const manual = el('button', { type: 'button', class: 'aw-manual', hidden: '' });
    manual.addEventListener('click', () => this.#send({ type: 'manual' }));
    const message = el('p', { class: 'aw-message', id: `${id}-message`, role: 'status' });
    const attribution = el('p', { class: 'aw-attribution', hidden: '' });
    fs.append(message, correction, confirmLabel, manual, attribution);
    Object.assign(this.#els, { confirmBox, confirmLabel, confirmText, manual, message, attribution, correction, correctionText, useBox, keepTyped });
    this.prepend(fs);
  }

  #send(event) {
    if (!this.#handle) return null;
    event.now = Math.round(performance.now()) + 1;
    const r = readResult(this.#exports, callCore(this.#exports, 'event', this.#handle, event));
    if (!r) return null;
    this.#render(r.view);
    for (const e of r.effects) this.#effect(e);
    return r;
  }

  #effect(e) {
    switch (e.type) {
      case 'fetch': return this.#fetch(e);
      case 'abort': {
        const f = this.#fetches.get(e.id);
        this.#fetches.delete(e.id);
        f?.abort('superseded');
        return;
      }
      case 'timer': {
        clearTimeout(this.#timers.get(e.name));
        this.#timers.set(e.name, setTimeout(() => this.#send({ type: 'timer', name: e.name, seq: e.seq }), e.ms));
        return;
      }
      case 'focus': {
        const target = e.field === 'confirm' ? this.#els.confirmBox
          : e.field === 'correction' ? this.#els.useBox.querySelector('button') : this.#els.fields[e.field]?.input;
        target?.focus();
        // Typing goes on after what the field holds (carried over, or to be fixed).
        if (target?.type === 'text') target.setSelectionRange(target.value.length, target.value.length);
        return;
      }
      case 'commit': return this.#commit(e);
      case 'uncommit': return this.#commit(null);
      case 'proceed': return this.#round?.proceeded(this);
    }
  }

  #fetch(e) {
    const ctrl = new AbortController();
    this.#fetches.set(e.id, ctrl);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort('timeout');
    }, e.timeoutMs);
    const base = (this.dataset.api || scriptURL.origin).replace(/\/+$/, '');
    const headers = { Authorization: `Bearer ${this.dataset.key || ''}` };
    if (e.body) headers['Content-Type'] = 'application/json';
    fetch(base + e.path + (e.query ? `?${e.query}` : ''), {
      method: e.method,
      headers,
      body: e.body || undefined,
      signal: ctrl.signal,
      mode: 'cors',
      credentials: 'omit',
      referrerPolicy: 'strict-origin-when-cross-origin',
    })
      .then(async (res) => ({ status: res.status, body: await res.text(), retryAfter: Number(res.headers.get('Retry-After')) || 0 }))
      .then(
        (r) => ({ type: 'response', id: e.id, status: r.status, body: r.body, retryAfter: Math.round(r.retryAfter) }),
        () => ({ type: 'response', id: e.id, error: timedOut ? 'timeout' : 'network' }),
      )
      .then((ev) => {
        clearTimeout(timer);
        if (this.#fetches.get(e.id) !== ctrl) return; // aborted: its answer no longer counts
        this.#fetches.delete(e.id);
        if (ev.status >= 400) explainRefusal(ev.status, ev.body, ev.retryAfter);
        this.#send(ev);
      });
  }

  // #commit fills the shop's fields named in data-fields (creating hidden inputs for names
  // the page does not have) and tells the page.
  //
  // The country is not cleared when the address is withdrawn: it is still the country, and a
  // shop maps it to its own country select, whose change events drive data-country. A select
  // is only ever set to one of its own options (matched without regard to case): an empty or
  // unknown value would leave it on no option and tell the page the country is "".
  #commit(e) {
    const a = e ? { ...e.address, status: e.status, unverified: String(e.unverified), confirmed: String(e.confirmed) } : null;
    for (const [key, name] of this.#mapping()) {
      if (!a && key === 'countryCode') continue;
      const target = this.#target(name);
      let v = String(a ? (a[key] ?? '') : '');
      if (target instanceof HTMLSelectElement) {
        const option = [...target.options].find((o) => o.value === v) ||
          [...target.options].find((o) => o.value.toLowerCase() === v.toLowerCase());
        if (!v || !option) continue;
        v = option.value;
      }
      if (target.value === v) continue;
      target.value = v;
      target.dispatchEvent(new Event('input', { bubbles: true }));
      target.dispatchEvent(new Event('change', { bubbles: true }));
    }
    this.value = e ? { ...e.address } : null;
    const detail = e ? { address: { ...e.address }, status: e.status, unverified: e.unverified, confirmed: e.confirmed } : null;
    this.dispatchEvent(new Event('change', { bubbles: true }));
    this.dispatchEvent(new CustomEvent('adreswijzer:address', { bubbles: true, composed: true, detail }));
  }

  #mapping() {
    const out = [];
    for (const part of (this.dataset.fields || DEFAULT_FIELDS).split(',')) {
      const [key, name] = part.split(':').map((s) => s.trim());
      if (TARGETS.includes(key) && name) out.push([key, name]);
    }
    for (const [key, name] of VERDICT) {
      if (!out.some(([k]) => k === key)) out.push([key, name]);
    }
    return out;
  }

  #target(name) {
    const form = this.closest('form');
    let t = form?.elements.namedItem(name) || document.getElementsByName(name)[0];
    if (t instanceof RadioNodeList) t = t[0];
    if (!t) {
      t = el('input', { type: 'hidden', name });
      this.append(t);
    }
    return t;
  }

  #render(v) {
    this.#view = v;
    const { fs, legend, fields, message, manual, confirmBox, confirmLabel, confirmText, attribution } = this.#els;
    legend.textContent = v.title;
    fs.setAttribute('aria-busy', String(v.busy));
    this.setAttribute('data-state', v.busy ? 'busy' : v.state);
    this.toggleAttribute('data-committed', v.committed);
    this.toggleAttribute('data-unverified', v.unverified);
    const section = this.dataset.section ?? 'shipping';
    // Order as the core says: NL asks postcode and number first, BE the street first. Moved
    // only when the order changes (a new country): moving an input takes its focus away.
    const order = v.fields.map((f) => fields[f.name].wrap);
    const current = [...fs.querySelectorAll(':scope > .aw-field')];
    if (order.some((w, i) => current[i] !== w)) for (const w of order) fs.insertBefore(w, message);
    for (const f of v.fields) {
      const { wrap, label, input } = fields[f.name];
      wrap.hidden = !f.visible;
      label.textContent = f.label;
      // null: before the core, the field keeps what the customer types.
      if (f.value !== null && input.value !== f.value) input.value = f.value;
      input.readOnly = f.readOnly;
      // The shop's required, carried by the fields the customer is shown and must fill.
      input.required = this.#shopRequires && f.required && f.visible && !f.readOnly;
      input.setAttribute('aria-invalid', String(f.invalid));
      input.inputMode = f.inputMode;
      if (f.autocomplete) input.setAttribute('autocomplete', `${section} ${f.autocomplete}`.trim());
      else input.setAttribute('autocomplete', 'off');
      if (f.invalid || v.messageField === f.name) input.setAttribute('aria-describedby', message.id);
      else input.removeAttribute('aria-describedby');
      this.#renderCombo(f, input, wrap, v.list);
    }
    if (message.textContent !== v.message) message.textContent = v.message;
    message.dataset.kind = v.messageKind;
    manual.hidden = !v.manual.visible;
    manual.textContent = v.manual.label;
    const { correction, correctionText, useBox, keepTyped } = this.#els;
    correction.hidden = !v.correction.visible;
    correctionText.textContent = v.correction.text;
    const options = v.correction.options || [];
    while (useBox.children.length > options.length) useBox.lastChild.remove();
    options.forEach((text, i) => {
      let b = useBox.children[i];
      if (!b) {
        b = el('button', { type: 'button', class: 'aw-use', 'data-index': String(i) });
        useBox.append(b);
      }
      if (b.textContent !== text) b.textContent = text;
    });
    keepTyped.textContent = v.correction.keep;
    confirmLabel.hidden = !v.confirm.visible;
    confirmText.textContent = v.confirm.label;
    confirmBox.checked = v.confirm.checked;
    attribution.textContent = v.attribution;
    attribution.hidden = !v.attribution;
  }

  #renderCombo(f, input, wrap, list) {
    let ul = this.#els.lists[f.name];
    if (!f.combo) {
      input.removeAttribute('role');
      input.removeAttribute('aria-autocomplete');
      input.removeAttribute('aria-controls');
      input.removeAttribute('aria-expanded');
      input.removeAttribute('aria-activedescendant');
      if (ul) ul.hidden = true;
      return;
    }
    const listId = `${this.#uid}-${f.name}-list`;
    if (!ul) {
      // tabindex -1: Chromium puts a list that scrolls in the tab order, so Tab from the
      // input would land on the list, whose blur closes it and leaves the focus nowhere. The
      // options are reached with the arrow keys from the input (aria-activedescendant).
      ul = el('ul', { class: 'aw-list', id: listId, role: 'listbox', tabindex: '-1', hidden: '' });
      // Keep the focus in the input while an option is clicked; the click then chooses.
      ul.addEventListener('mousedown', (ev) => ev.preventDefault());
      ul.addEventListener('click', (ev) => {
        const li = ev.target.closest('[role="option"]');
        if (li) this.#send({ type: 'choose', index: Number(li.dataset.index) });
      });
      this.#els.lists[f.name] = ul;
      wrap.append(ul);
    }
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-controls', listId);
    const mine = list && list.field === f.name ? list : null;
    const open = !!mine && mine.open && mine.options.length > 0;
    input.setAttribute('aria-expanded', String(open));
    ul.hidden = !open;
    ul.setAttribute('aria-label', mine ? mine.label : f.label);
    const options = mine ? mine.options : [];
    while (ul.children.length > options.length) ul.lastChild.remove();
    options.forEach((text, i) => {
      let li = ul.children[i];
      if (!li) {
        li = el('li', { class: 'aw-option', role: 'option', id: `${listId}-${i}`, 'data-index': String(i) });
        ul.append(li);
      }
      if (li.textContent !== text) li.textContent = text;
      li.setAttribute('aria-selected', String(i === mine.active));
      li.classList.toggle('aw-chosen', i === mine.selected);
    });
    if (open && mine.active >= 0) {
      input.setAttribute('aria-activedescendant', `${listId}-${mine.active}`);
      ul.children[mine.active]?.scrollIntoView({ block: 'nearest' });
    } else {
      input.removeAttribute('aria-activedescendant');
    }
  }
}

function el(tag, attrs = {}) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

if (!customElements.get('adreswijzer-form')) customElements.define('adreswijzer-form', AdreswijzerForm);
