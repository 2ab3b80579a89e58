export { type AdminRequest, runAdmin } from './admin/admin.js';
export { type DemoOptions, runDemo } from './demo/demo.js';
