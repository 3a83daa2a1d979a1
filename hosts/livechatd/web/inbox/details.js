// The conversation's tags (chips, add from the catalog, remove) and custom
// attributes (edit in place, add, remove), under the thread's header.
import {api} from './api.js';
import {h, replace, icon, ICONS} from './dom.js';
import {showError} from './notify.js';

let uid = 0;

export class ConversationDetails {
  // ctx: {state, conversation(), write(fn), onTags(tags, id, ticket), onCatalogChanged()}
  constructor(ctx) {
    this.ctx = ctx;
    this.attributes = [];
    this.el = this.render();
  }

  render() {
    this.chips = h('ul', {class: 'tag-chips'});
    this.datalist = h('datalist', {id: 'tag-catalog'});
    this.tagInput = h('input', {type: 'text', id: 'tag-input', list: 'tag-catalog', maxlength: '100',
                                autocomplete: 'off', placeholder: 'Add tag…'});
    const tagForm = h('form', {class: 'tag-form', onsubmit: (e) => { e.preventDefault(); this.addTag(); }},
                      h('label', {for: 'tag-input', class: 'visually-hidden'}, 'Add tag'), this.tagInput,
                      this.datalist, h('button', {type: 'submit', class: 'small'}, 'Add'));

    this.attrList = h('ul', {class: 'attr-list'});
    this.attrName = h('input', {type: 'text', id: 'attr-new-name', maxlength: '255', placeholder: 'Name',
                                autocomplete: 'off'});
    this.attrValue = h('input', {type: 'text', id: 'attr-new-value', maxlength: '1000', placeholder: 'Value',
                                 autocomplete: 'off'});
    const attrForm = h('form', {class: 'attr-form', onsubmit: (e) => { e.preventDefault(); this.addAttribute(); }},
                       h('label', {for: 'attr-new-name', class: 'visually-hidden'}, 'New attribute name'),
                       this.attrName,
                       h('label', {for: 'attr-new-value', class: 'visually-hidden'}, 'New attribute value'),
                       this.attrValue,
                       h('button', {type: 'submit', class: 'small'}, 'Save attribute'));

    return h('div', {class: 'details'},
             h('div', {class: 'details-row'},
               h('h3', {class: 'details-title'}, 'Tags'), this.chips, tagForm),
             h('div', {class: 'details-row'},
               h('h3', {class: 'details-title'}, 'Attributes'), this.attrList, attrForm));
  }

  setCatalog(catalog) {
    replace(this.datalist, catalog.map((t) => h('option', {value: t.name})));
  }

  // ---- tags ----

  renderTags(tags) {
    replace(this.chips, (tags || []).map((tag) =>
      h('li', {class: 'tag-chip'},
        h('span', {class: 'tag-name'}, tag),
        h('button', {type: 'button', class: 'chip-remove', 'aria-label': `Remove tag ${tag}`, title: `Remove tag ${tag}`,
                     onclick: () => this.removeTag(tag)}, icon(ICONS.x)))));
    if (!tags || !tags.length) this.chips.append(h('li', {class: 'muted none'}, 'No tags'));
  }

  async addTag() {
    const conv = this.ctx.conversation();
    const tag = this.tagInput.value.trim();
    if (!conv || !tag) return;
    try {
      const [res, ticket] = await this.ctx.write(async (t) => [await api.addTags(conv.id, [tag]), t]);
      this.tagInput.value = '';
      this.ctx.onTags(res.data, conv.id, ticket);
      this.ctx.onCatalogChanged();
    } catch (err) {
      showError(err, 'The tag was not added');
    }
  }

  async removeTag(tag) {
    const conv = this.ctx.conversation();
    if (!conv) return;
    try {
      const [res, ticket] = await this.ctx.write(async (t) => [await api.removeTag(conv.id, tag), t]);
      this.ctx.onTags(res.data, conv.id, ticket);
      this.ctx.onCatalogChanged();
      this.tagInput.focus();
    } catch (err) {
      showError(err, 'The tag was not removed');
    }
  }

  // ---- attributes ----

  async loadAttributes(id) {
    this.attributes = [];
    replace(this.attrList);
    try {
      const res = await api.attributes(id);
      const conv = this.ctx.conversation();
      if (!conv || conv.id !== id) return;
      this.attributes = res.data || [];
      this.renderAttributes();
    } catch (err) {
      if (err.status !== 404) showError(err, 'Attributes could not be loaded');
    }
  }

  renderAttributes() {
    replace(this.attrList, this.attributes.map((a) => {
      const id = `attr-${++uid}`;
      const input = h('input', {type: 'text', id, value: a.value, maxlength: '1000', autocomplete: 'off',
                                onchange: () => this.saveAttribute(a, input),
                                onkeydown: (e) => {
                                  if (e.key === 'Enter') { e.preventDefault(); input.blur(); }
                                }});
      return h('li', {class: 'attr'},
               h('label', {for: id, class: 'attr-name'}, a.name),
               h('span', {class: 'attr-value'}, input,
                 h('button', {type: 'button', class: 'chip-remove', 'aria-label': `Remove attribute ${a.name}`,
                              title: `Remove attribute ${a.name}`, onclick: () => this.deleteAttribute(a)},
                   icon(ICONS.x))));
    }));
    if (!this.attributes.length) this.attrList.append(h('li', {class: 'muted none'}, 'No attributes'));
  }

  async saveAttribute(a, input) {
    const conv = this.ctx.conversation();
    if (!conv || input.value === a.value) return;
    try {
      const res = await api.updateAttribute(conv.id, a.id, {value: input.value});
      Object.assign(a, res.data);
      input.classList.add('saved');
      setTimeout(() => input.classList.remove('saved'), 1200);
    } catch (err) {
      showError(err, `${a.name} was not saved`);
      input.value = a.value;
    }
  }

  async deleteAttribute(a) {
    const conv = this.ctx.conversation();
    if (!conv) return;
    try {
      await api.deleteAttribute(conv.id, a.id);
      this.attributes = this.attributes.filter((x) => x.id !== a.id);
      this.renderAttributes();
      this.attrName.focus();
    } catch (err) {
      showError(err, `${a.name} was not removed`);
    }
  }

  async addAttribute() {
    const conv = this.ctx.conversation();
    const name = this.attrName.value.trim();
    if (!conv || !name) {
      this.attrName.focus();
      return;
    }
    try {
      const res = await api.upsertAttribute(conv.id, name, this.attrValue.value);
      const i = this.attributes.findIndex((x) => x.id === res.data.id || x.name === res.data.name);
      if (i >= 0) this.attributes[i] = res.data;
      else this.attributes.push(res.data);
      this.attrName.value = '';
      this.attrValue.value = '';
      this.renderAttributes();
    } catch (err) {
      showError(err, 'The attribute was not saved');
    }
  }
}
