// The open room's messages as a list: senders by name, times, day breaks, system sentences.
import { dayKeyOf, dayLabelOf, sentenceOf, timeOf } from './chat-text.js';

/** One message as a list item; system messages are sentences, forwards are quoted. */
function messageItem(message, nameOf) {
  const item = document.createElement('li');
  item.className = 'message';
  item.dataset.id = message.id ?? '';
  const time = document.createElement('time');
  time.dateTime = message.at.toISOString();
  time.textContent = timeOf(message.at);
  time.title = message.at.toLocaleString();
  item.append(time);
  if (message.operation && !message.attachment) {
    item.classList.add('system');
    const sentence = document.createElement('span');
    sentence.className = 'sentence';
    sentence.textContent = sentenceOf({ ...message, senderId: message.sender }, nameOf);
    item.append(sentence);
    return item;
  }
  const sender = document.createElement('span');
  sender.className = 'sender';
  sender.textContent = nameOf(message.sender);
  sender.title = message.sender;
  const text = document.createElement('span');
  text.className = 'text';
  if (message.attachment) {
    text.textContent = `📎 ${message.attachment.name} (${message.attachment.id}) ${message.text}`;
    item.dataset.attachmentId = message.attachment.id;
  } else {
    text.textContent = message.text;
  }
  item.append(sender, text);
  if (message.forwardedText !== undefined) {
    const quote = document.createElement('blockquote');
    quote.className = 'forward';
    quote.textContent = `forwarded${message.forwardedAt ? ` (${message.forwardedAt})` : ''}: ${message.forwardedText}`;
    item.append(quote);
  }
  return item;
}

/** A day break before the first message of each day. */
function dayItem(date) {
  const item = document.createElement('li');
  item.className = 'day';
  item.setAttribute('role', 'separator');
  item.textContent = dayLabelOf(date);
  return item;
}

/**
 * The messages of one room, kept in order of their time (archive and live messages alike) and
 * drawn again whole on each change: the page shows a few dozen at a time.
 */
export function createMessagesView(list, nameOf) {
  let messages = [];
  let keys = new Set();
  const draw = () => {
    const items = [];
    let day;
    for (const message of messages) {
      const key = dayKeyOf(message.at);
      if (key !== day) items.push(dayItem(message.at));
      day = key;
      items.push(messageItem(message, nameOf));
    }
    list.replaceChildren(...items);
  };
  return {
    clear() {
      messages = [];
      keys = new Set();
      list.replaceChildren();
    },
    /** Adds messages (already shown ones, by id, are skipped) and draws the list. */
    add(added) {
      for (const message of added) {
        const key = message.id || `${message.sender}:${message.at.getTime()}:${message.text}`;
        if (keys.has(key)) continue;
        keys.add(key);
        messages.push(message);
      }
      messages.sort((first, second) => first.at - second.at);
      draw();
    },
  };
}
