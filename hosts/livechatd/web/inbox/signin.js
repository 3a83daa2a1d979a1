// The sign-in screen. Wrong credentials get the server's one message for
// every cause; too many attempts say how long to wait (Retry-After).
import {api} from './api.js';
import {h, icon, ICONS} from './dom.js';

export function renderSignIn(root, onSignedIn, notice) {
  const email = h('input', {type: 'email', id: 'signin-email', name: 'email', autocomplete: 'username', required: true,
                            spellcheck: 'false'});
  const password = h('input', {type: 'password', id: 'signin-password', name: 'password',
                               autocomplete: 'current-password', required: true});
  const shop = h('input', {type: 'text', id: 'signin-shop', name: 'shopId', autocomplete: 'off', spellcheck: 'false',
                           'aria-describedby': 'signin-shop-hint'});
  const alert = h('div', {class: 'form-alert', role: 'alert'});
  const submit = h('button', {type: 'submit', class: 'primary wide'}, 'Sign in');
  const form = h('form', {class: 'signin-form', novalidate: true},
                 h('div', {class: 'field'}, h('label', {for: 'signin-email'}, 'Email'), email),
                 h('div', {class: 'field'}, h('label', {for: 'signin-password'}, 'Password'), password),
                 h('div', {class: 'field'}, h('label', {for: 'signin-shop'}, 'Store ID (optional)'), shop,
                   h('p', {id: 'signin-shop-hint', class: 'hint'}, 'Only needed when your email belongs to several stores.')),
                 alert, submit);

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    alert.textContent = '';
    alert.classList.remove('shown');
    if (!email.value.trim() || !password.value) {
      showAlert(!email.value.trim() ? 'Enter your email.' : 'Enter your password.');
      (!email.value.trim() ? email : password).focus();
      return;
    }
    submit.disabled = true;
    submit.textContent = 'Signing in…';
    try {
      const res = await api.login(email.value.trim(), password.value, shop.value.trim() || undefined);
      onSignedIn(res.data, shop.value.trim() || null);
    } catch (err) {
      if (err.status === 429) {
        const n = err.retryAfter && err.retryAfter > 0 ? err.retryAfter : 1;
        showAlert(`Too many attempts, try again in ${n} s`);
      } else {
        const msg = err.message || 'Sign-in failed';
        showAlert(msg.charAt(0).toUpperCase() + msg.slice(1));
      }
      password.select();
      password.focus();
    } finally {
      submit.disabled = false;
      submit.textContent = 'Sign in';
    }
  });

  function showAlert(text) {
    alert.textContent = text;
    alert.classList.add('shown');
  }

  const main = h('main', {class: 'signin'},
                 h('div', {class: 'signin-card'},
                   h('div', {class: 'brand brand-lg'}, h('span', {class: 'brand-mark'}, icon(ICONS.inbox)),
                     h('span', null, 'livechat')),
                   h('h1', null, 'Sign in'),
                   h('p', {class: 'muted'}, 'Answer your customers from the team inbox.'),
                   notice ? h('p', {class: 'notice', role: 'status'}, notice) : null,
                   form));
  root.replaceChildren(main);
  email.focus();
}
