// Stays live through the change feed: an EventSource on /api/chat/events
// (Server-Sent Events, resumed with Last-Event-ID by the browser). Events
// are gathered for a short moment and handed over as one batch: the
// conversations they touched, and whether any was new or removed.
//
// It starts at the feed's end ("after=now"), read BEFORE the first screen
// loads: an event between the two then shows up twice at worst (a harmless
// refresh), never zero times. The store's old events are never replayed.

import {get} from './api.js';

const TYPES = [
  'conversation.created', 'conversation.state_changed', 'conversation.assigned', 'conversation.tags_updated',
  'conversation.removed', 'message.created', 'message.updated', 'message.removed',
];
const BATCH_MS = 300;

export class LiveFeed {
  // onBatch({ids: Set, created: Set, removed: Set, messages: Set}); onStatus('live'|'connecting'|'offline');
  // onReset(): the feed started again from its end (after refusals, e.g. a
  // position the server no longer keeps: 410); reload what is on screen.
  constructor({onBatch, onStatus, onReset}) {
    this.onBatch = onBatch;
    this.onStatus = onStatus || (() => {});
    this.onReset = onReset || (() => {});
    this.refusals = 0;
    this.source = null;
    this.cursor = null;
    this.batch = null;
    this.timer = 0;
    this.retryMs = 2000;
    this.retryTimer = 0;
    this.stopped = false;
  }

  // Resolves once the starting position is known; load the first screen after it.
  async start() {
    this.stopped = false;
    try {
      const page = await get('/api/chat/events', {after: 'now', limit: 1, types: TYPES.join(',')});
      this.cursor = page && page.paging ? page.paging.nextCursor : null;
    } catch {
      this.cursor = null;  // the stream's own errors are shown once it connects
    }
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    const params = new URLSearchParams({types: TYPES.join(',')});
    params.set('after', this.cursor || 'now');
    this.onStatus('connecting');
    const source = new EventSource(`/api/chat/events?${params}`, {withCredentials: true});
    this.source = source;
    source.onopen = () => {
      this.retryMs = 2000;
      this.refusals = 0;
      this.onStatus('live');
    };
    source.onerror = () => {
      if (this.source !== source) return;
      if (source.readyState === EventSource.CLOSED) {
        // Refused (401, 429, a proxy): the browser will not retry; we do,
        // from the last event we saw, backing off up to a minute.
        this.onStatus('offline');
        this.source = null;
        clearTimeout(this.retryTimer);
        // EventSource does not say why. Three refusals in a row: the position
        // may be gone (410 once the server pruned past it); start again from
        // the feed's end and have the screen re-read, rather than retry a
        // position that can never work.
        if (++this.refusals >= 3) {
          this.refusals = 0;
          this.retryTimer = setTimeout(() => this.start().then(() => this.onReset()), this.retryMs);
        } else {
          this.retryTimer = setTimeout(() => this.connect(), this.retryMs);
        }
        this.retryMs = Math.min(60000, this.retryMs * 2);
      } else {
        this.onStatus('connecting');  // the browser reconnects with Last-Event-ID
      }
    };
    for (const type of TYPES) source.addEventListener(type, (e) => this.receive(type, e));
  }

  receive(type, e) {
    if (e.lastEventId) this.cursor = e.lastEventId;
    let event;
    try {
      event = JSON.parse(e.data);
    } catch {
      return;
    }
    if (event.cursor) this.cursor = event.cursor;
    const id = event.conversationId;
    if (!id) return;
    if (!this.batch) {
      this.batch = {ids: new Set(), created: new Set(), removed: new Set(), messages: new Set()};
      this.batchStart = Date.now();
    }
    this.batch.ids.add(id);
    if (type === 'conversation.created') this.batch.created.add(id);
    if (type === 'conversation.removed') this.batch.removed.add(id);
    if (type.startsWith('message.')) this.batch.messages.add(id);
    // Debounced, but a steady stream still refreshes at least once a second.
    clearTimeout(this.timer);
    const wait = Date.now() - this.batchStart > 1000 ? 0 : BATCH_MS;
    this.timer = setTimeout(() => this.flush(), wait);
  }

  flush() {
    const batch = this.batch;
    this.batch = null;
    if (batch && !this.stopped) this.onBatch(batch);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    if (this.source) this.source.close();
    this.source = null;
  }
}
