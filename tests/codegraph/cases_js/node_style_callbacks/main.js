const fs = require('fs');
const { EventEmitter } = require('events');

function onRead(err, data) {
  if (err) {
    handleError(err);
  }
  return data;
}

function handleError(e) {
  console.error(e.message);
}

function onData(chunk) {
  console.log(chunk);
}

const bus = new EventEmitter();
bus.on('data', onData);
fs.readFile(__filename, 'utf8', onRead);
bus.emit('data', 'x');
