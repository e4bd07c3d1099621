export type {
  ColumnOrder,
  EndpointMatch,
  FailOptions,
  FaultSwitches,
  GraphQuotaOptions,
  SimEndpoint,
  ThrottleHeaderKind,
  ThrottleOptions,
} from './faults.js';
export { THROTTLE_HEADER_NAMES } from './faults.js';
export type { SimResource } from './resource.js';
export type { AzureSimulator, AzureSimulatorOptions } from './server.js';
export { SIM_CA, startAzureSimulator } from './server.js';
export type { SimRequest, SimStats } from './sim-stats.js';
export type { SimSubscription } from './subscription.js';
export type { WasteCase } from './waste-cases.js';
export { WASTE_CASES } from './waste-cases.js';
