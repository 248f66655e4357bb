import type { operations } from '../../generated/api.js';
import { exchangeToken } from './exchangeToken.js';
import { getContractJson } from './getContractJson.js';
import { getContractYaml } from './getContractYaml.js';
import { getDocs } from './getDocs.js';
import { getDocsAsset } from './getDocsAsset.js';
import { getHealth } from './getHealth.js';
import { getProfilePicture } from './getProfilePicture.js';
import { getUserInfo } from './getUserInfo.js';
import { bearerAuth, getWhois } from './getWhois.js';
import type { Handler, SecurityHandler } from './types.js';

export type { AppDeps, Handler, SecurityHandler } from './types.js';

/** One handler per operationId; the compiler refuses a map that misses or invents an operation. */
export const operationHandlers = {
  exchangeToken,
  getWhois,
  getUserInfo,
  getProfilePicture,
  getHealth,
  getContractYaml,
  getContractJson,
  getDocs,
  getDocsAsset,
} satisfies Record<keyof operations, Handler>;

/** One handler per security scheme that needs one (clientBasic is checked by exchangeToken itself). */
export const securityHandlers = { bearerAuth } satisfies Record<string, SecurityHandler>;
