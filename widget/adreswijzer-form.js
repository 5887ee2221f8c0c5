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

import { loadReactor } from './wasi.js';

const scriptURL = new URL(import.meta.url);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// One instance of the core per page; each element is a form inside it.
let reactor;
function core() {
  reactor ??= loadReactor(new URL('./adreswijzer.wasm', scriptURL));
  return reactor;
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

const STYLE = `
:where(adreswijzer-form) { display: block; font: var(--aw-font, inherit); color: var(--aw-color, inherit); }
:where(adreswijzer-form) .aw-fieldset { border: var(--aw-fieldset-border, 0); margin: 0; padding: var(--aw-fieldset-padding, 0); min-width: 0; }
:where(adreswijzer-form) .aw-legend { font-weight: var(--aw-legend-weight, 600); margin-bottom: var(--aw-gap, .75rem); padding: 0; display: var(--aw-legend-display, block); }
:where(adreswijzer-form) .aw-field { position: relative; margin-bottom: var(--aw-gap, .75rem); }
:where(adreswijzer-form) .aw-field[hidden] { display: none; }
:where(adreswijzer-form) .aw-label { display: block; margin-bottom: .25rem; color: var(--aw-label-color, inherit); font-size: var(--aw-label-size, .95em); }
:where(adreswijzer-form) .aw-input { box-sizing: border-box; width: 100%; font: inherit; padding: var(--aw-input-padding, .5rem .625rem);
  border: var(--aw-input-border, 1px solid #8a8a8a); border-radius: var(--aw-radius, .375rem); background: var(--aw-input-bg, #fff); color: inherit; }
:where(adreswijzer-form) .aw-input:focus { outline: var(--aw-focus-ring, 3px solid #2563eb); outline-offset: 1px; }
:where(adreswijzer-form) .aw-input[readonly] { background: var(--aw-readonly-bg, #f3f4f6); }
:where(adreswijzer-form) .aw-input[aria-invalid="true"] { border-color: var(--aw-error-color, #b91c1c); }
:where(adreswijzer-form) .aw-list { position: absolute; z-index: var(--aw-list-z, 10); left: 0; right: 0; margin: .125rem 0 0; padding: .25rem 0; list-style: none;
  max-height: var(--aw-list-max-height, 16rem); overflow-y: auto; background: var(--aw-list-bg, #fff);
  border: var(--aw-input-border, 1px solid #8a8a8a); border-radius: var(--aw-radius, .375rem); box-shadow: var(--aw-list-shadow, 0 6px 18px rgba(0,0,0,.15)); }
:where(adreswijzer-form) .aw-option { padding: .4rem .625rem; cursor: pointer; }
:where(adreswijzer-form) .aw-option[aria-selected="true"] { background: var(--aw-active-bg, #dbeafe); color: var(--aw-active-color, inherit); }
:where(adreswijzer-form) .aw-option.aw-chosen::after { content: " ✓"; }
:where(adreswijzer-form) .aw-message { min-height: 1.25em; margin: 0 0 var(--aw-gap, .75rem); font-size: var(--aw-message-size, .95em); }
:where(adreswijzer-form) .aw-message[data-kind="error"] { color: var(--aw-error-color, #b91c1c); }
:where(adreswijzer-form) .aw-message[data-kind="warning"] { color: var(--aw-warning-color, #92400e); }
:where(adreswijzer-form) .aw-message[data-kind="info"] { color: var(--aw-info-color, #1f2937); }
:where(adreswijzer-form) .aw-correction { margin: 0 0 var(--aw-gap, .75rem); }
:where(adreswijzer-form) .aw-correction[hidden] { display: none; }
:where(adreswijzer-form) .aw-correction p { margin: 0 0 .5rem; font-weight: 600; }
:where(adreswijzer-form) .aw-correction button { font: inherit; margin: 0 .5rem .25rem 0; padding: .375rem .75rem; cursor: pointer; color: inherit;
  border: var(--aw-input-border, 1px solid #8a8a8a); border-radius: var(--aw-radius, .375rem); background: var(--aw-input-bg, #fff); }
:where(adreswijzer-form) .aw-correction button:focus { outline: var(--aw-focus-ring, 3px solid #2563eb); outline-offset: 1px; }
:where(adreswijzer-form) .aw-confirm { display: flex; gap: .5rem; align-items: flex-start; margin-bottom: var(--aw-gap, .75rem); }
:where(adreswijzer-form) .aw-confirm[hidden], :where(adreswijzer-form) .aw-manual[hidden] { display: none; }
:where(adreswijzer-form) .aw-manual { font: inherit; background: none; border: 0; padding: 0; color: var(--aw-link-color, #1d4ed8); text-decoration: underline; cursor: pointer; }
:where(adreswijzer-form) .aw-attribution { font-size: var(--aw-attribution-size, .75em); color: var(--aw-muted-color, #6b7280); margin: .5rem 0 0; }
:where(adreswijzer-form)[data-state="busy"] .aw-fieldset { cursor: progress; }
`;

function injectStyle() {
  if (document.getElementById('adreswijzer-form-style')) return;
  const style = document.createElement('style');
  style.id = 'adreswijzer-form-style';
  style.textContent = STYLE;
  document.head.prepend(style); // first, so the shop's own rules win
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

// The keys of data-fields whose inputs the customer may have typed into while the core
// loaded; what they hold is carried over into the form's fields.
const TYPED = ['address1', 'address2', 'zip', 'city', 'street', 'houseNumber', 'houseNumberAddition'];

const TARGETS = ['address1', 'address2', 'zip', 'city', 'countryCode', 'street', 'houseNumber', 'houseNumberAddition', 'status', 'unverified', 'confirmed'];

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
  #enterTaken = false;

  /** The address handed to the shop, or null. */
  value = null;

  connectedCallback() {
    if (this.#started) {
      if (this.#handle) this.#round?.widgets.add(this);
      return;
    }
    this.#started = true;
    core().then((exports) => this.#mount(exports)).catch((err) => {
      // The shop's own inputs stay: the customer can always type an address.
      console.warn('adreswijzer: the address form could not start; the page\'s own fields are used.', err.message);
      this.setAttribute('data-state', 'unavailable');
    });
  }

  disconnectedCallback() {
    this.#round?.widgets.delete(this);
  }

  attributeChangedCallback() {
    if (this.#handle) this.#send({ type: 'config', ...this.#config() });
  }

  #config() {
    const lang = (this.getAttribute('lang') || this.closest('[lang]')?.getAttribute('lang') || 'nl').slice(0, 2).toLowerCase();
    return {
      // Passed as it is: the core keeps its country when this is empty or unknown.
      country: (this.dataset.country || '').toUpperCase(),
      lang,
      carrier: this.dataset.carrier || '',
      allowPoBox: this.hasAttribute('data-allow-po-box'),
    };
  }

  #mount(exports) {
    if (!this.isConnected) return;
    this.#exports = exports;
    injectStyle();
    const typed = this.#typedWhileLoading();
    // The shop's own inputs (progressive enhancement) step aside; what they say about
    // required fields must not stop the shop's form while they are hidden.
    if (this.childNodes.length) {
      const box = document.createElement('div');
      box.className = 'aw-fallback';
      box.hidden = true;
      box.append(...this.childNodes);
      for (const el of box.querySelectorAll('[required]')) {
        el.removeAttribute('required');
        el.dataset.awRequired = '';
      }
      this.#fallback = box;
      this.append(box);
    }
    this.#build();
    this.#handle = callCore(exports, 'create', this.#config());
    this.#send({ type: 'render' });
    if (typed) this.#send({ type: 'prefill', ...typed });
    const form = this.closest('form');
    if (form) {
      this.#round = coordinator(form);
      this.#round.widgets.add(this);
    }
  }

  // #typedWhileLoading reads what the customer typed into the shop's own inputs (shown while
  // the core loads; on a slow connection that is seconds) and which of them has the focus,
  // before they step aside: the core carries both over into its own fields.
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

  _submit() {
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
    // A corrected address: the register's version beside the customer's, and their choice.
    const correction = el('div', { class: 'aw-correction', role: 'group', 'aria-labelledby': `${id}-correction`, hidden: '' });
    const correctionText = el('p', { id: `${id}-correction` });
    const useCorrection = el('button', { type: 'button', class: 'aw-use' });
    const keepTyped = el('button', { type: 'button', class: 'aw-keep' });
    correction.append(correctionText, useCorrection, keepTyped);
    useCorrection.addEventListener('click', () => this.#send({ type: 'correction', use: true }));
    keepTyped.addEventListener('click', () => this.#send({ type: 'correction', use: false }));
    const manual = el('button', { type: 'button', class: 'aw-manual' });
    manual.addEventListener('click', () => this.#send({ type: 'manual' }));
    const message = el('p', { class: 'aw-message', id: `${id}-message`, role: 'status' });
    const attribution = el('p', { class: 'aw-attribution' });
    fs.append(message, correction, confirmLabel, manual, attribution);
    Object.assign(this.#els, { confirmBox, confirmLabel, confirmText, manual, message, attribution, correction, correctionText, useCorrection, keepTyped });
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
          : e.field === 'correction' ? this.#els.useCorrection : this.#els.fields[e.field]?.input;
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
      .then(async (res) => ({ status: res.status, body: await res.text() }))
      .then(
        (r) => ({ type: 'response', id: e.id, status: r.status, body: r.body }),
        () => ({ type: 'response', id: e.id, error: timedOut ? 'timeout' : 'network' }),
      )
      .then((ev) => {
        clearTimeout(timer);
        if (this.#fetches.get(e.id) !== ctrl) return; // aborted: its answer no longer counts
        this.#fetches.delete(e.id);
        if (ev.status === 401 || ev.status === 403) {
          console.warn(`adreswijzer: the API refused the publishable key (${ev.status}); check the key and its allowed origins.`);
        }
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
    const spec = this.dataset.fields || 'address1:address1,address2:address2,zip:zip,city:city,countryCode:countryCode';
    const out = [];
    for (const part of spec.split(',')) {
      const [key, name] = part.split(':').map((s) => s.trim());
      if (TARGETS.includes(key) && name) out.push([key, name]);
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
      if (input.value !== f.value) input.value = f.value;
      input.readOnly = f.readOnly;
      input.setAttribute('aria-required', String(f.required));
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
    const { correction, correctionText, useCorrection, keepTyped } = this.#els;
    correction.hidden = !v.correction.visible;
    correctionText.textContent = v.correction.text;
    useCorrection.textContent = v.correction.use;
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
    if (mine) ul.setAttribute('aria-label', mine.label);
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
