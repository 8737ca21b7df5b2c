exports.hello = function (name) {
  return decorate('hello ' + name);
};

exports.bye = (name) => decorate('bye ' + name);

module.exports.shout = function shout(s) {
  return exports.hello(s).toUpperCase();
};

function decorate(s) {
  return `*${s}*`;
}
