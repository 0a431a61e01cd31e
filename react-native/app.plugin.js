// Expo finds a package's config plugin here. The plugin is written in TypeScript (plugin/src) and compiled to
// plugin/build; its default export is the plugin function.
module.exports = require('./plugin/build/index.js').default;
