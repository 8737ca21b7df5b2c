const utils = {};

utils.trim = function (s) {
  return s.trim();
};

utils.clean = (s) => utils.trim(s).toLowerCase();

function run() {
  return utils.clean('  Hi ');
}

console.log(run());
