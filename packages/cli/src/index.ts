export { type DemoOptions, runDemo } from './demo/demo.js';
